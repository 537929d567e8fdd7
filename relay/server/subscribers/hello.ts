// The first message of a subscriber's stream: where the relay stands, where the stream starts,
// which store it serves (the same on every instance of it: ../store/storeIdentity.ts) and what
// the token reads. A forwarder keys its resume point by that identity and scope
// (relay/cli/forwardState.ts), so two tokens never share one and every instance of one relay
// resumes it alike; and it is told when it
// asked to resume beyond every seq the relay ever gave out (its data was reset), which would
// otherwise stream nothing of what the relay takes next.
import type { HelloMessage, TokenScope } from '../../../src/core/relay/protocol';
import type { Scope } from '../access/scope';

/** A token's scope as the hello says it: a channel token's channel name and its generation (from the key `name@generation`). */
export function tokenScope(scope: Scope): TokenScope {
  if (scope.kind === 'admin') return { kind: 'admin' };
  const generation = scope.key.startsWith(`${scope.channel}@`) ? scope.key.slice(scope.channel.length + 1) : '';
  return { kind: 'channel', channel: scope.channel, ...(generation ? { generation } : {}) };
}

/**
 * The hello of a stream from `since` for a token of `scope`; `relayLastSeq` is the relay-wide last
 * seq (told to the token only as `sinceAhead`); `relay` the store's identity.
 */
export function helloMessage(scope: TokenScope, lastSeq: number, since: number, relayLastSeq: number, relay?: string): Buffer {
  const hello: HelloMessage = {
    type: 'hello',
    lastSeq,
    since,
    scope,
    ...(relay ? { relay } : {}),
    ...(since > relayLastSeq ? { sinceAhead: true as const } : {}),
  };
  return Buffer.from(JSON.stringify(hello));
}
