// Realistic sample payloads for the seven events and a ping. Deterministic for a given `now`,
// owner and repo, so tests and `service-hooks send` produce stable bytes.
import { createHash } from 'node:crypto';
import type { EventType, PullRequestPayload, PushPayload, RepositoryRef, Sender } from './types';
import { DEFAULT_BASE_URL } from '../defaults';
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

/** What every sample shares: the repository, the sender, the time and commit hashes from the seed. */
interface SampleContext {
  opts: SampleOptions;
  now: Date;
  at: string;
  repository: RepositoryRef;
  sender: Sender;
  seed: string;
  before: string;
  after: string;
}

type Builder = (c: SampleContext) => Record<string, unknown>;

export function samplePayload(event: EventType | 'ping', opts: SampleOptions = {}): Record<string, unknown> {
  return BUILDERS[event](sampleContext(opts));
}

function sampleContext(opts: SampleOptions): SampleContext {
  const owner = opts.owner ?? 'acme';
  const name = opts.repo ?? 'widgets';
  const base = (opts.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const now = opts.now ?? new Date();
  const seed = `${owner}/${name}@${now.getTime()}`;
  return {
    opts,
    now,
    at: isoSecond(now),
    repository: { name, full_name: `${owner}/${name}`, url: `${base}/${owner}/${name}` },
    sender: { login: 'octo-dev', type: 'User' },
    seed,
    before: hash(`${seed}:before`),
    after: hash(`${seed}:after`),
  };
}

function pushSample({ repository, sender, seed, before, after }: SampleContext): Record<string, unknown> {
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

function pullRequestSample({ opts, repository, sender, before, after }: SampleContext): Record<string, unknown> {
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

function issueSample({ at, repository, sender }: SampleContext): Record<string, unknown> {
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
}

function commentSample({ at, repository, sender }: SampleContext): Record<string, unknown> {
  return {
    event: 'comment',
    action: 'created',
    issue: { number: 41, title: 'Widget picker is hard to read at night', state: 'open' },
    comment: { id: 1001, body: 'I can take this one.', user: { login: sender.login }, created_at: at },
    repository,
    sender,
  };
}

function releaseSample({ at, repository, sender }: SampleContext): Record<string, unknown> {
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
}

function pipelineSample({ now, at, repository, sender, after }: SampleContext): Record<string, unknown> {
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
}

function agentSample({ at, repository, sender }: SampleContext): Record<string, unknown> {
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
}

function pingSample({ opts, repository, sender }: SampleContext): Record<string, unknown> {
  return {
    event: 'ping',
    zen: 'Keep it logically awesome.',
    hook_id: opts.webhookId ?? '1',
    repository,
    sender,
  };
}

const BUILDERS: Record<EventType | 'ping', Builder> = {
  push: pushSample,
  pull_request: pullRequestSample,
  issue: issueSample,
  comment: commentSample,
  release: releaseSample,
  pipeline: pipelineSample,
  agent: agentSample,
  ping: pingSample,
};
