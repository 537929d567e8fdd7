// How startRelay runs on a JetStream store (`--store nats://…`): the store, and forwarding as the
// durable consumers' shared work (ingress starts no attempt of its own).
import { join } from 'node:path';
import { Agent } from 'undici';
import { DEFAULT_FORWARD_TIMEOUT_MS, DEFAULT_PER_TARGET_CONCURRENCY } from '../forwarding/forwarder';
import { retrySchedule } from '../../../src/core/relay/forwardPolicy';
import { RELAY_RETENTION } from '../../../src/core/defaults';
import type { ChannelConfigs } from '../channels/channels';
import type { RelayStore } from '../base/storeTypes';
import { connectNats } from './connect';
import { NatsStore } from './natsStore';
import { CHANNEL_LASTS_FILE } from '../store/channelLasts';
import { SharedForwarding } from './sharedForwarding';
import { shareChannels } from './channelKv';
import { shareSessions } from './sessionKv';
import type { SharedSessions as Sessions } from '../base/sessionShare';
import { shareReplays, type SharedReplays } from './replayShare';
import type { ChannelRegistry } from '../channels/channelRegistry';
import type { JetStreamHandles } from '../metrics/jetstream';

export interface NatsChoice {
  servers: string;
  credsFile?: string;
  replicas?: number;
  prefix?: string;
}

export interface SharedForwardingSettings {
  retrySchedule?: readonly number[];
  /** Speed-up of the schedule (1000 turns a minute into 60 ms). */
  timeScale?: number;
  forwardTimeoutMs?: number;
  retention?: { maxCount?: number; maxAgeMs?: number; maxRejected?: number };
}

export async function openNatsStore(
  choice: NatsChoice,
  settings: SharedForwardingSettings & { dataDir?: string; snapshot?: { every?: number } | false },
  log: (line: string) => void,
  signal?: AbortSignal,
): Promise<{
  store: RelayStore;
  shared: (channels: ChannelConfigs) => SharedForwarding;
  shareChannels: (registry: ChannelRegistry) => Promise<() => void>;
  shareSessions: (sessions: Sessions) => Promise<() => void>;
  /** What the metrics read: the connection's state and the forward consumers. */
  jetstream: JetStreamHandles;
  shareReplays: (local: (seq: number) => Promise<number>) => SharedReplays;
}> {
  const nc = await connectNats({ servers: choice.servers, credsFile: choice.credsFile, log, signal });
  const retention = settings.retention ?? RELAY_RETENTION;
  // Per stream prefix: each prefix is a store of its own.
  const lastsFile = settings.dataDir ? join(settings.dataDir, `${choice.prefix ?? 'SH'}-${CHANNEL_LASTS_FILE}`) : undefined;
  // --snapshot-every N: deliveries between index snapshots (./natsSnapshot.ts); 0 (false): none.
  const { snapshot = {} } = settings;
  const snapshotOptions = snapshot && (snapshot.every ? { every: snapshot.every } : {});
  const store = await NatsStore.open(nc, { replicas: choice.replicas, prefix: choice.prefix, retention, log, lastsFile, snapshot: snapshotOptions });
  return {
    store,
    shared: (channels) => sharedForwarding(store, channels, settings, log),
    shareChannels: (registry) => shareChannels(registry, store.client, { prefix: choice.prefix ?? 'SH', replicas: store.replicas, log }),
    shareSessions: (sessions) => shareSessions(sessions, store.client, { prefix: choice.prefix ?? 'SH', replicas: store.replicas, log }),
    jetstream: { connection: nc, manager: store.manager, deliveryStream: store.deliveryStream },
    shareReplays: (local) => shareReplays(nc, choice.prefix ?? 'SH', local, log),
  };
}

function sharedForwarding(store: NatsStore, channels: ChannelConfigs, settings: SharedForwardingSettings, log: (line: string) => void): SharedForwarding {
  const perTarget = DEFAULT_PER_TARGET_CONCURRENCY;
  return new SharedForwarding(store, {
    targets: channels.allTargets(),
    schedule: retrySchedule(settings.retrySchedule),
    timeScale: settings.timeScale ?? 1,
    timeoutMs: settings.forwardTimeoutMs ?? DEFAULT_FORWARD_TIMEOUT_MS,
    perTarget,
    dispatcher: new Agent({ keepAliveTimeout: 10_000, connections: perTarget }),
    log,
  });
}
