// What the JetStream store is opened with, and the header its delivery messages carry.
import type { NatsSnapshotOptions } from './natsSnapshot';

/** The delivery's meta (channel, time, verification, raw headers, targets) as JSON, beside the body bytes. */
export const META_HEADER = 'Sh-Meta';

export interface NatsStoreOptions {
  /** Stream names are <prefix>_DELIVERIES and <prefix>_ATTEMPTS (default SH). */
  prefix?: string;
  /** Stream replicas (default: 3 with three or more servers, else 1). */
  replicas?: number;
  /** maxCount accepted deliveries, maxRejected rejected ones apart (the store's retention: ../store/logStore.ts); maxAgeMs also the stream's max_age. */
  retention?: { maxCount?: number; maxAgeMs?: number; maxRejected?: number };
  /** Each channel identity's last seq once a prune took its deliveries (../store/channelLasts.ts). */
  lastsFile?: string;
  /** How long a publish waits for JetStream's acknowledgement (default 5 s). */
  ackTimeoutMs?: number;
  /** How long ingress tries to get a delivery acknowledged before answering 503 (default 7 s). */
  publishBudgetMs?: number;
  /**
   * Publishes of deliveries that may wait for a stream leader at once, and as many of attempt
   * records apart; more are answered 503 at once (default 512). Apart, so that the attempts
   * stream without a leader (a subscriber's records waiting) cannot make new posts fail.
   */
  maxWaitingPublishes?: number;
  /** How often the index forgets what the streams' limits removed (default 5 s). */
  syncIntervalMs?: number;
  /** When the index snapshot is written (./natsSnapshot.ts); false: never (none is read either). */
  snapshot?: NatsSnapshotOptions | false;
  log?: (line: string) => void;
}

/** The subjects' root of a stream: SH_DELIVERIES → sh.deliveries. */
export function subjectRoot(stream: string): string {
  return stream.toLowerCase().replace(/_/g, '.');
}
