// What a bearer token may do. The admin token (the relay token) may do everything; a channel
// token (relay/server/channels/channelRegistry.ts) sees only its own channel's deliveries and stream, and
// only those of its own generation (relay/server/base/channelKey.ts): never what an earlier channel of
// the same name received.
import { tokenMatches } from './access';
import type { ChannelRegistry } from '../channels/channelRegistry';

/** A channel token's scope: its channel's name, and the identity its deliveries are stored under. */
export type Scope = { kind: 'admin' } | { kind: 'channel'; channel: string; key: string };

export const ADMIN: Scope = { kind: 'admin' };

/** The scope of a presented token, or undefined when it is no token of this relay (401). */
export function authenticate(given: string | undefined, adminToken: string, channels: ChannelRegistry): Scope | undefined {
  if (tokenMatches(given, adminToken)) return ADMIN;
  const channel = channels.channelOf(given);
  return channel === undefined ? undefined : { kind: 'channel', channel, key: channels.keyOf(channel) };
}

/** Whether a delivery stored under channel identity `key` is visible to `scope` (another channel's is "not found"). */
export function sees(scope: Scope, key: string): boolean {
  return scope.kind === 'admin' || scope.key === key;
}

/**
 * The channel identity a request asks about, as `scope` allows it: the current identity of the
 * channel it asked for (admin; `keyOf`), or the channel token's own; an error when a channel token
 * asks for another channel.
 */
export function scopedChannel(scope: Scope, asked: string | undefined, keyOf: (name: string) => string): { channel: string | undefined } | { error: string } {
  if (scope.kind === 'admin') return { channel: asked === undefined ? undefined : keyOf(asked) };
  if (asked !== undefined && asked !== scope.channel) return { error: `this token is limited to channel '${scope.channel}'` };
  return { channel: scope.key };
}
