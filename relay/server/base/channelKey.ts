// A channel's identity in the store. A channel created through the API gets a generation id that
// is never reused (relay/server/channels/channelRegistry.ts); each delivery is stored with it, so a channel
// deleted and created again under the same name (or an API channel taking over a name an implicit
// channel used) starts empty: its token never sees, lists, streams or replays what an earlier
// channel of that name received. The key is `<name>@<generation>` ('@' is no channel-name
// character), or the bare name for channels without one (default, --config, implicit, and API
// channels created before generations existed).

export function channelKey(name: string, generation?: string): string {
  return generation ? `${name}@${generation}` : name;
}

/** The channel name in a key. */
export function channelOfKey(key: string): string {
  const at = key.indexOf('@');
  return at < 0 ? key : key.slice(0, at);
}
