// Realistic sample payloads for the seven events and a ping. Deterministic for a given `now`,
// owner and repo, so tests and `service-hooks send` produce stable bytes.
import { createHash } from 'node:crypto';
import type { EventType, PullRequestPayload, PushPayload, RepositoryRef, Sender } from './types';
import { isoSecond } from '../time';

export interface SampleOptions {
  owner?: string;
  repo?: string;
  /** Web base of the service; the repository URL is `<baseUrl>/<owner>/<repo>`. */
  baseUrl?: string;
  /** pull_request only (default `opened`). */
  action?: 'opened' | 'closed';
  /** pull_request `closed` only (default true). */
  merged?: boolean;
  now?: Date;
  /** ping only: the webhook the ping is for. */
  webhookId?: string;
}

/** A 40-hex commit hash derived from `seed`. */
function hash(seed: string): string {
  return createHash('sha1').update(seed).digest('hex');
}


export function samplePayload(event: EventType | 'ping', opts: SampleOptions = {}): Record<string, unknown> {
  const owner = opts.owner ?? 'acme';
  const name = opts.repo ?? 'widgets';
  const base = (opts.baseUrl ?? 'http://127.0.0.1:8787').replace(/\/+$/, '');
  const now = opts.now ?? new Date();
  const at = isoSecond(now);
  const repository: RepositoryRef = { name, full_name: `${owner}/${name}`, url: `${base}/${owner}/${name}` };
  const sender: Sender = { login: 'octo-dev', type: 'User' };
  const seed = `${owner}/${name}@${now.getTime()}`;
  const before = hash(`${seed}:before`);
  const after = hash(`${seed}:after`);

  switch (event) {
    case 'push': {
      const p: PushPayload = {
        event: 'push',
        repository,
        ref: 'refs/heads/main',
        before,
        after,
        commits: [
          { id: hash(`${seed}:c1`), message: 'Fix widget alignment on narrow screens', author: { name: 'Dana Dev', email: 'dana@example.com' } },
          { id: after, message: 'Add a test for the widget layout', author: { name: 'Dana Dev', email: 'dana@example.com' } },
        ],
        sender,
      };
      return { ...p };
    }
    case 'pull_request': {
      const action = opts.action ?? 'opened';
      const p: PullRequestPayload = {
        event: 'pull_request',
        action,
        number: 42,
        pull_request: {
          title: 'Add dark mode to the widget picker',
          body: 'Adds a dark theme and a toggle in the settings.\n\nCloses #41.',
          state: action === 'closed' ? 'closed' : 'open',
          head: { ref: 'feature/dark-mode', sha: after },
          base: { ref: 'main', sha: before },
          ...(action === 'closed' ? { merged: opts.merged ?? true } : {}),
        },
        repository,
        sender,
      };
      return { ...p };
    }
    case 'issue':
      return {
        event: 'issue',
        action: 'opened',
        issue: {
          number: 41,
          title: 'Widget picker is hard to read at night',
          body: 'The picker has no dark theme.',
          state: 'open',
          labels: ['enhancement'],
          assignees: ['octo-dev'],
          created_at: at,
        },
        repository,
        sender,
      };
    case 'comment':
      return {
        event: 'comment',
        action: 'created',
        issue: { number: 41, title: 'Widget picker is hard to read at night', state: 'open' },
        comment: { id: 1001, body: 'I can take this one.', user: { login: sender.login }, created_at: at },
        repository,
        sender,
      };
    case 'release':
      return {
        event: 'release',
        action: 'published',
        release: {
          tag_name: 'v1.4.0',
          name: 'Widgets 1.4.0',
          body: '- Dark mode\n- Faster start-up',
          draft: false,
          prerelease: false,
          target_commitish: 'main',
          published_at: at,
        },
        repository,
        sender,
      };
    case 'pipeline':
      return {
        event: 'pipeline',
        action: 'completed',
        pipeline: {
          id: 5150,
          name: 'CI',
          status: 'completed',
          conclusion: 'success',
          ref: 'refs/heads/main',
          sha: after,
          url: `${repository.url}/pipelines/5150`,
          started_at: isoSecond(new Date(now.getTime() - 95_000)),
          completed_at: at,
        },
        repository,
        sender,
      };
    case 'agent':
      return {
        event: 'agent',
        action: 'performed',
        agent: {
          name: 'triage-agent',
          action: 'labeled_issue',
          target: { type: 'issue', number: 41 },
          summary: 'Labeled issue #41 as enhancement',
          performed_at: at,
        },
        repository,
        sender,
      };
    case 'ping':
      return {
        event: 'ping',
        zen: 'Keep it logically awesome.',
        hook_id: opts.webhookId ?? '1',
        repository,
        sender,
      };
  }
}
