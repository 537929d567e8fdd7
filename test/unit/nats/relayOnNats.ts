// The set-up several JetStream tests share: a real nats-server, a target app, and one relay process
// on that store (--store, the admin token in the environment, forwarding to the app), started
// before the calling describe block and stopped after it.
import { spawnRelay, startTarget, tempDir, type RelayProcess, type TargetApp } from '../relay/helpers';
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
