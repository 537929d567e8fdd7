// Channels created through the API, shared by every relay instance on one JetStream store: a KV
// bucket (<prefix>_CHANNELS) holds `ch.<name>` (the channel: secrets, token hash, time) and
// `del.<name>` (a deleted name's tombstone). Creating a name that another instance already created
// fails atomically (KV create), and a watch applies the other instances' changes here, so every
// instance accepts the same channel tokens and refuses a deleted channel's at once.
import type { JetStreamClient } from '@nats-io/jetstream';
import type { KV, KvEntry } from '@nats-io/kv';
import { encoded, followBucket } from './kvBucket';
import { isApiError, JetStreamApiCodes } from './apiErrors';
import { ChannelError, type ChannelRegistry, type StoredChannel } from '../channels/channelRegistry';

export interface ChannelKvOptions {
  prefix: string;
  replicas: number;
  log?: (line: string) => void;
}

const CH = 'ch.';
const DEL = 'del.';

/** Loads the bucket into `registry`, keeps it in step, and makes the registry write there. Returns a stop function. */
export async function shareChannels(registry: ChannelRegistry, js: JetStreamClient, o: ChannelKvOptions): Promise<() => void> {
  const { kv, stop } = await followBucket(js, `${o.prefix}_CHANNELS`, { replicas: o.replicas, history: 1 }, (e) => apply(registry, e, o.log));
  registry.persistIn(persistence(kv));
  return stop;
}

function apply(registry: ChannelRegistry, e: KvEntry, log?: (line: string) => void): void {
  if (e.operation !== 'PUT') return; // removals of ch.x follow a del.x put; of del.x, a ch.x put
  if (e.key.startsWith(DEL)) return registry.applyDeleted(e.key.slice(DEL.length));
  if (!e.key.startsWith(CH)) return;
  try {
    registry.applyCreated(e.json<StoredChannel>());
  } catch (err) {
    log?.(`channels: ignoring a malformed entry ${e.key} in the shared store (${(err as Error).message})`);
  }
}

function persistence(kv: KV) {
  return {
    async created(c: StoredChannel): Promise<void> {
      try {
        await kv.create(CH + c.name, encoded(c));
      } catch (err) {
        if (isApiError(err, JetStreamApiCodes.StreamWrongLastSequence, JetStreamApiCodes.StreamWrongLastSequenceUnknown))
          throw new ChannelError('exists', `channel '${c.name}' already exists`);
        throw err;
      }
      await kv.delete(DEL + c.name);
    },
    async deleted(name: string): Promise<void> {
      await kv.put(DEL + name, new TextEncoder().encode('1'));
      await kv.delete(CH + name);
    },
    async updated(c: StoredChannel): Promise<void> {
      await kv.put(CH + c.name, encoded(c));
    },
  };
}
