// The relay's store on NATS JetStream (issue 15): the shared index (LogStore, ../store/logStore.ts)
// over the two streams (NatsLog, ./natsLog.ts), with the handles the shared forwarding needs
// (./sharedForwarding.ts). The index and its queries live in ../store/logStore.ts, the attempts
// held for a delivery not indexed yet with them.
import type { NatsConnection } from '@nats-io/transport-node';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { StoreUnavailableError } from '../base/errors';
import { LogStore } from '../store/logStore';
import { NatsLog } from './natsLog';
import type { NatsStoreOptions } from './storeOptions';

export { StoreUnavailableError, NatsLog };
export { META_HEADER, type NatsStoreOptions } from './storeOptions';

/** The JetStream store: the shared index (LogStore) over the streams (NatsLog). */
export class NatsStore extends LogStore<NatsLog> {
  /** Creates (or updates) the streams and loads the index from them. */
  static async open(nc: NatsConnection, options: NatsStoreOptions = {}): Promise<NatsStore> {
    const store = new NatsStore(await NatsLog.connect(nc, options), {
      ...(options.retention ? { retention: options.retention } : {}),
      ...(options.lastsFile ? { lastsFile: options.lastsFile } : {}),
    });
    await store.start();
    return store;
  }

  /** Stream (and channel bucket) replicas: --nats-replicas, else 3 on a cluster of three or more servers, else 1. */
  get replicas(): number {
    return this.log.replicas;
  }

  /** For the shared forwarding: the JetStream handles, the deliveries stream and a channel's subject. */
  get client(): JetStreamClient {
    return this.log.client;
  }

  get manager(): JetStreamManager {
    return this.log.manager;
  }

  get deliveryStream(): string {
    return this.log.deliveryStream;
  }

  deliverySubject(channel: string): string {
    return this.log.deliverySubject(channel);
  }

  leaderMessage(seq: number): Promise<{ id: string; data: Uint8Array; metaText: string }> {
    return this.log.leaderMessage(seq);
  }
}
