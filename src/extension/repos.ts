// Which repositories the Webhooks view shows: the setting, else the git remotes on the base URL's host.
import * as vscode from 'vscode';
import { detectReposFromGitConfig, reposFromRemoteUrls, type GitRemote } from '../core/git';
import { parseRepoRef, repoKey, type RepoRef } from '../core/tree';
import { settings } from './config';
import { log } from './log';

interface GitApi {
  repositories: { rootUri: vscode.Uri; state: { remotes: { name: string; fetchUrl?: string; pushUrl?: string }[] } }[];
}

async function gitApiRemotes(): Promise<GitRemote[] | undefined> {
  const ext = vscode.extensions.getExtension<{ getAPI(v: 1): GitApi }>('vscode.git');
  if (!ext) return undefined;
  try {
    const exports = ext.isActive ? ext.exports : await ext.activate();
    const api = exports.getAPI(1);
    if (api.repositories.length === 0) return undefined;
    return api.repositories.flatMap((r) =>
      r.state.remotes.flatMap((rem) => [rem.fetchUrl, rem.pushUrl].filter((u): u is string => !!u).map((url) => ({ name: rem.name, url }))),
    );
  } catch (err) {
    log().warn(`vscode.git API unavailable: ${(err as Error).message}`);
    return undefined;
  }
}

async function gitConfigRepos(baseUrl: string): Promise<RepoRef[]> {
  const out: RepoRef[] = [];
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    try {
      const bytes = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder.uri, '.git', 'config'));
      out.push(...detectReposFromGitConfig(new TextDecoder().decode(bytes), baseUrl));
    } catch {
      // no .git/config in this folder
    }
  }
  return out;
}

export async function resolveRepositories(): Promise<RepoRef[]> {
  const s = settings();
  if (s.repositories.length > 0) {
    const refs = s.repositories.map(parseRepoRef).filter((r): r is RepoRef => r !== undefined);
    if (refs.length !== s.repositories.length) log().warn('serviceHooks.repositories has entries that are not owner/repo; they are ignored');
    return dedupe(refs);
  }
  const remotes = await gitApiRemotes();
  const found = remotes ? reposFromRemoteUrls(remotes, s.baseUrl) : [];
  return dedupe(found.length > 0 ? found : await gitConfigRepos(s.baseUrl));
}

function dedupe(refs: RepoRef[]): RepoRef[] {
  const seen = new Set<string>();
  return refs.filter((r) => (seen.has(repoKey(r)) ? false : (seen.add(repoKey(r)), true)));
}
