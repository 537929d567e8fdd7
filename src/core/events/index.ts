// Events (spec §6 and §2.3): the seven event types, payload types, validators and sample builders.
export { EVENT_TYPES, isEventType } from './types';
export type {
  Commit,
  EventType,
  GitPointer,
  IssuePayload,
  PullRequest,
  PullRequestPayload,
  PushPayload,
  RepositoryRef,
  Sender,
  ValidationResult,
} from './types';
export { validatePayload, errorPath } from './validate';
export { samplePayload, type SampleOptions } from './samples';
export { sampleRequest, secretCheckRequest, SAMPLE_USER_AGENT, type SampleRequest } from './sampleRequest';
