// The set-up several JetStream tests share: a real nats-server, a target app, and one relay process
// on that store (--store, the admin token in the environment, forwarding to the app), started
// before the calling describe block and stopped after it.
import { EventEmitter, once } from 'node:events';
import { subscribe, type Subscription } from '../../../relay/client';
import type { ForwardMessage } from '../../../src/core/relay/protocol';
import { spawnRelay, startTarget, tempDir, type RelayProcess, type TargetApp } from '../relay/support/helpers';
import { startNats, type NatsCluster } from './natsServers';

export interface RelayOnNats {
  nats: NatsCluster;
  relay: RelayProcess;
  app: TargetApp;
}

/** Registers the before/after hooks; returns the running set (valid inside the tests). */
export function relayOnNatsPerSuite(admin: string, relayArgs: string[] = []): () => RelayOnNats {
  let set: Partial<RelayOnNats> = {};
  before(async () => {
    set.nats = await startNats(1);
    set.app = await startTarget();
    set.relay = await spawnRelay(['--store', set.nats.urls, '--data', tempDir(), '--forward', set.app.url, ...relayArgs], {
      ...process.env,
      SERVICE_HOOKS_RELAY_TOKEN: admin,
    });
  });
  after(async () => {
    await set.relay?.stop('SIGKILL');
    await set.app?.close();
    await set.nats?.stop();
    set = {};
  });
  return () => set as RelayOnNats;
}

/** The relay's forward messages through an admin subscription (no bodies); `next()` resolves with the next one after the call. */
export function watchForwards(relay: RelayProcess, admin: string): { sub: Subscription; next(): Promise<ForwardMessage> } {
  const forwards = new EventEmitter();
  const sub = subscribe({
    url: relay.url.replace('http', 'ws'),
    token: admin,
    since: 0,
    bodies: false,
    onDelivery: () => undefined,
    onForward: (m) => forwards.emit('forward', m),
  });
  return { sub, next: async () => ((await once(forwards, 'forward')) as [ForwardMessage])[0] };
}
