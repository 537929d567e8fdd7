// The relay's Prometheus metrics (issue 23 §2) on a registry of its own (several relays in one
// process keep apart). The hot path only adds to plain numbers (./tally.ts) or observes a histogram
// once per journal batch or delivery; everything else is read when /metrics is scraped.
// Label values are bounded: channel and target labels are the configured/created ones, capped
// (past the cap they count under "_other"), and a target label never carries credentials or a query.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ForwardAttempt, Verification } from '../../../src/core/relay/protocol';
import type { SyncedBatch } from '../journal/journal';
import type { NewDelivery, RelayStore, StoredDelivery } from '../base/storeTypes';
import { registerProcessMetrics } from './process';
import { BoundedLabels, Tally } from './tally';
import { redactUrlPath } from '../../shared/redact';

import type { RefusalReason } from '../access/refusalLog';

/** What the gauges read at scrape time. */
export interface MetricsSources {
  store: RelayStore;
  subscribers: { count: number; queuedBytes: number };
  /** 'jetstream' when the deliveries are in NATS JetStream (--store nats://…). */
  storeKind: 'file' | 'jetstream';
  /** Whether a channel is the relay's own (configured, default or API): its label is reserved. */
  reserved?: (channel: string) => boolean;
}

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

export class RelayMetrics {
  readonly registry = new Registry();
  /** channel, verification → deliveries and bytes (file or JetStream, this instance's ingress). */
  private readonly received = new Tally();
  private readonly refused = new Tally();
  /** target, outcome → attempts. */
  private readonly attempts = new Tally();
  /** Configured and API channels first (MetricsSources.reserved), then the first 200 others. */
  readonly channels = new BoundedLabels(200, undefined, (name) => this.sources.reserved?.(name) ?? false);
  readonly targets = new BoundedLabels(100, targetLabel);
  private readonly appendSeconds: Histogram;
  private readonly fsyncSeconds: Histogram;
  private readonly batchRecords: Histogram;
  private readonly attemptSeconds: Histogram<'target'>;
  private readonly jetstreamConnected: Gauge;

  constructor(private readonly sources: MetricsSources) {
    const registers = [this.registry];
    registerProcessMetrics(this.registry);
    const append = sources.storeKind === 'file' ? 'relay_journal_append_seconds' : 'relay_jetstream_publish_ack_seconds';
    this.appendSeconds = new Histogram({
      name: append,
      help:
        sources.storeKind === 'file'
          ? 'Time from a delivery journal write to its fdatasync (what the sender waits for)'
          : 'Time from publishing a delivery to JetStream to its acknowledgement',
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.fsyncSeconds = new Histogram({
      name: 'relay_journal_fsync_seconds',
      help: 'Duration of one journal fdatasync (one group commit)',
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.batchRecords = new Histogram({ name: 'relay_journal_batch_records', help: 'Records written by one group commit', buckets: BATCH_BUCKETS, registers });
    this.attemptSeconds = new Histogram({
      name: 'relay_forward_attempt_seconds',
      help: 'Duration of one forward attempt to a target',
      labelNames: ['target'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.jetstreamConnected = new Gauge({
      name: 'relay_jetstream_connected',
      help: '1 while connected to NATS (JetStream store only)',
      registers: sources.storeKind === 'jetstream' ? registers : [],
    });
    this.counters(registers);
    this.gauges(registers);
  }

  /** Ingress stored a delivery (called before it is durable: the counter counts accepted writes). */
  delivery(meta: NewDelivery, bytes: number): void {
    this.received.add(this.channels.of(meta.channel), meta.verification, 1, bytes);
  }

  /** A delivery write became durable after `ms`. */
  durable(ms: number): void {
    this.appendSeconds.observe(ms / 1000);
  }

  synced(batch: SyncedBatch): void {
    this.fsyncSeconds.observe(batch.syncMs / 1000);
    this.batchRecords.observe(batch.records);
  }

  refusal(reason: RefusalReason): void {
    this.refused.add(reason, '', 1, 0);
  }

  attempt(attempt: ForwardAttempt): void {
    const target = this.targets.of(attempt.target);
    this.attempts.add(target, outcomeOf(attempt), 1, 0);
    if (attempt.durationMs > 0) this.attemptSeconds.observe({ target }, attempt.durationMs / 1000);
  }

  /** JetStream only: the connection to NATS went down (false) or came back (true). */
  connected(up: boolean): void {
    this.jetstreamConnected.set(up ? 1 : 0);
  }

  /**
   * Counts the attempts this process makes (the store's 'attempted'), not every attempt its index
   * applies: on JetStream each instance's index also applies the others' attempts, but not all of
   * them (those for a delivery it had not indexed yet were never told), so the counts of two
   * instances disagreed and no aggregate gave the total. Each instance counts its own; sum them.
   * Returns the remover.
   */
  follow(store: RelayStore): () => void {
    const onAttempt = (_seq: number, attempt: ForwardAttempt) => this.attempt(attempt);
    store.on('attempted', onAttempt);
    return () => store.off('attempted', onAttempt);
  }

  async text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private counters(registers: Registry[]): void {
    const received = this.received;
    const refused = this.refused;
    const attempts = this.attempts;
    new Counter({
      name: 'relay_deliveries_received_total',
      help: 'Deliveries received and stored, by channel and verification (verified, unverified, rejected)',
      labelNames: ['channel', 'verification'],
      registers,
      collect() {
        this.reset();
        received.forEach((channel, verification, n) => this.inc({ channel, verification }, n));
      },
    });
    new Counter({
      name: 'relay_delivery_bytes_total',
      help: 'Body bytes of the deliveries received, by channel',
      labelNames: ['channel'],
      registers,
      collect() {
        this.reset();
        received.forEach((channel, _v, _n, bytes) => bytes > 0 && this.inc({ channel }, bytes));
      },
    });
    new Counter({
      name: 'relay_requests_rejected_total',
      help: 'Requests refused, by reason: signature (401), token (401: API, WebSocket, page sign-in, /metrics), host (403 Host header), browser (403 cross-site), too-large (413), rate-limit (429), allow-list (403), unknown-channel (404), bad-request (400)',
      labelNames: ['reason'],
      registers,
      collect() {
        this.reset();
        refused.forEach((reason, _x, n) => this.inc({ reason }, n));
      },
    });
    new Counter({
      name: 'relay_forward_attempts_total',
      help: 'Forward attempts this relay instance made, by target and outcome (ok, http_4xx, http_5xx, timeout, error); target "subscriber" is a WebSocket subscriber of this instance that forwarded and acknowledged. On JetStream, sum over instances',
      labelNames: ['target', 'outcome'],
      registers,
      collect() {
        this.reset();
        attempts.forEach((target, outcome, n) => this.inc({ target, outcome }, n));
      },
    });
  }

  private gauges(registers: Registry[]): void {
    const { store, subscribers } = this.sources;
    const targets = this.targets;
    new Gauge({
      name: 'relay_forward_pending',
      help: 'Forwards waiting for a successful attempt (the backlog), by target',
      labelNames: ['target'],
      registers,
      collect() {
        this.reset();
        for (const [target, n] of pendingByTarget(store.pending())) this.set({ target: targets.of(target) }, n);
      },
    });
    gauge(registers, 'relay_subscribers_connected', 'WebSocket subscribers connected', () => subscribers.count);
    gauge(registers, 'relay_subscriber_buffered_bytes', "Bytes queued on the subscribers' connections, not yet sent", () => subscribers.queuedBytes);
    gauge(registers, 'relay_store_deliveries', 'Deliveries held by the store', () => store.size);
    gauge(registers, 'relay_last_seq', 'The highest delivery seq given out', () => store.lastSeq);
    // What GET /readyz says of the store: the alert RelayStoreNotReady reads it (a relay that is up
    // but whose journal writes fail, or whose NATS connection is down, takes no delivery).
    gauge(
      registers,
      'relay_store_ready',
      '1 while the store can take deliveries, 0 while it cannot (a journal write failed, NATS unreachable, no JetStream quorum; GET /readyz says why)',
      () => (store.health().notReady === undefined ? 1 : 0),
    );
    gauge(
      registers,
      'relay_journal_corrupt_records',
      'Damaged journal records skipped (the records after them were kept)',
      () => store.integrity().corruptRecords,
    );
  }
}

function gauge(registers: Registry[], name: string, help: string, read: () => number): void {
  new Gauge({
    name,
    help,
    registers,
    collect() {
      this.set(read());
    },
  });
}

function pendingByTarget(pending: StoredDelivery[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of pending) {
    for (const f of e.summary.forward) if (f.status === 'pending') out.set(f.target, (out.get(f.target) ?? 0) + 1);
  }
  return out;
}

function outcomeOf(a: ForwardAttempt): string {
  if (a.ok) return 'ok';
  if (a.status !== undefined) return a.status >= 500 ? 'http_5xx' : 'http_4xx';
  return a.error?.startsWith('ETIMEDOUT') || a.error?.startsWith('UND_ERR_HEADERS_TIMEOUT') ? 'timeout' : 'error';
}

/**
 * A target as a label: origin and path, never user:password@ or a query, and the path's secrets
 * (Slack- and Discord-style webhook URLs carry theirs there) redacted (../../shared/redact.ts).
 */
export function targetLabel(target: string): string {
  try {
    const u = new URL(target);
    return redactUrlPath(`${u.protocol}//${u.host}${u.pathname}`);
  } catch {
    return target.length <= 64 && /^[\w.-]+$/.test(target) ? target : '_invalid';
  }
}

export type { Verification };
