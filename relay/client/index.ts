// The relay's client half: REST (RelayApi) and the WebSocket subscriber. No process-level side
// effects and no 'vscode': used by `service-hooks forward` and by the editor.
export { RelayApi, RelayApiError, type RelayApiOptions } from './api';
export { subscribe, type DeliveryHandled, type SubscribeOptions, type Subscription, type SubscriptionState } from './subscribe';
export { forwardDelivery, type ForwardResult } from './forward';
export { postAs, type PostAnswer } from './post';
export type * from '../../src/core/relay/protocol';
export {
  ForwardEngine,
  type CursorStore,
  type EngineClock,
  type ForwardCursor,
  type ForwardEngineOptions,
  type ForwardEvent,
  type RetryingDelivery,
} from './forwardEngine';
export { trustedAttempt, type AppAttempt, type AppTrust } from './appAttempt';
export { forwardLine } from './forwardLines';
