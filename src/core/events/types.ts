// The event types of spec §6 and the payload shapes of spec §2.3 (push, pull_request, issue).
// Payloads of the other events are not shown by the spec: they are plain JSON objects here.

export const EVENT_TYPES = ['push', 'pull_request', 'issue', 'comment', 'release', 'pipeline', 'agent'] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(x: unknown): x is EventType {
  return typeof x === 'string' && (EVENT_TYPES as readonly string[]).includes(x);
}

export interface RepositoryRef {
  name: string;
  /** `<org>/<repo>` */
  full_name: string;
  /** Web URL of the repository. */
  url: string;
}

export interface Sender {
  login: string;
  /** `User` for a user. */
  type: string;
}

export interface Commit {
  id: string;
  message: string;
  author: { name: string; email: string };
}

export interface PushPayload {
  event: 'push';
  repository: RepositoryRef;
  ref: string;
  before: string;
  after: string;
  commits: Commit[];
  sender: Sender;
}

export interface GitPointer {
  ref: string;
  sha: string;
}

export interface PullRequest {
  title: string;
  body: string;
  state: string;
  head: GitPointer;
  base: GitPointer;
  /** Present when the action is `closed`. */
  merged?: boolean;
}

export interface PullRequestPayload {
  event: 'pull_request';
  /** Values seen: `opened`, `closed`; the complete list is not shown by the spec. */
  action: string;
  number: number;
  pull_request: PullRequest;
  repository: RepositoryRef;
  sender: Sender;
}

export interface IssuePayload {
  event: 'issue';
  /** At least number, title and state; the remaining fields are not shown by the spec. */
  issue: { number: number; title: string; state: string; [key: string]: unknown };
  [key: string]: unknown;
}

export type ValidationResult = { ok: true; payload: unknown } | { ok: false; errors: string[] };
