// What a bearer token may do. The admin token (the relay token) may do everything; a channel
// token (relay/server/channelRegistry.ts) sees only its own channel's deliveries and stream.
import { tokenMatches } from './access';
import type { ChannelRegistry } from './channelRegistry';

export type Scope = { kind: 'admin' } | { kind: 'channel'; channel: string };

export const ADMIN: Scope = { kind: 'admin' };

/** The scope of a presented token, or undefined when it is no token of this relay (401). */
export function authenticate(given: string | undefined, adminToken: string, channels: ChannelRegistry): Scope | undefined {
  if (tokenMatches(given, adminToken)) return ADMIN;
  const channel = channels.channelOf(given);
  return channel === undefined ? undefined : { kind: 'channel', channel };
}

/** Whether a delivery of `channel` is visible to `scope` (another channel's delivery is "not found"). */
export function sees(scope: Scope, channel: string): boolean {
  return scope.kind === 'admin' || scope.channel === channel;
}

/**
 * The channel a request asks about, as `scope` allows it: what it asked (admin), or the channel
 * token's own channel; an error when a channel token asks for another channel.
 */
export function scopedChannel(scope: Scope, asked: string | undefined): { channel: string | undefined } | { error: string } {
  if (scope.kind === 'admin') return { channel: asked };
  if (asked !== undefined && asked !== scope.channel) return { error: `this token is limited to channel '${scope.channel}'` };
  return { channel: scope.channel };
}
