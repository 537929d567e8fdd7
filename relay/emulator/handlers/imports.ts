// What a repository takes in (spec §4): bulk issue import and CI secrets.
import { sendJson } from '../../shared/http';
import { checkIssues, checkSecretBody } from '../validate';
import { readChecked, repoKey, type Handler } from './context';

export const importIssues: Handler = async (ctx, req, res, p) => {
  const issues = await readChecked(ctx, req, res, checkIssues);
  if (!issues) return;
  const { replaced } = ctx.store.importIssues(repoKey(p), issues);
  sendJson(res, 201, { imported: issues.length, replaced, issues: issues.map((i) => ({ number: i.number })) });
};

export const createSecret: Handler = async (ctx, req, res, p) => {
  const s = await readChecked(ctx, req, res, checkSecretBody);
  if (!s) return;
  const outcome = ctx.store.upsertSecret(repoKey(p), s, ctx.now());
  sendJson(res, outcome === 'updated' ? 200 : 201, { name: s.name, protected: s.protected });
};
