// Which retry a failed delivery row needs. The service retries what it failed to deliver; a row
// the relay took and the app refused counts as delivered at the service (its retry endpoint
// answers 409), so it is replayed from the relay's journal; a row the relay rejected for its
// signature is retried at the service only when the signature it carried matches the channel
// now (the service's retry resends the same signature), else it is replayed re-signed.
import type { DeliveryView } from './types';

/** 'service': the service's retry endpoint; 'replay': the relay's journal, as received; 'resign': the relay's journal, signed again. */
export type RetryRoute = 'service' | 'replay' | 'resign';

/** `signatureMatchesNow`: for a row the relay rejected, whether its signature verifies with the channel's secrets now. */
export function retryRoute(d: Pick<DeliveryView, 'refusedBy' | 'retrying' | 'seq'>, signatureMatchesNow = false): RetryRoute {
  if (d.seq === undefined) return 'service';
  if (d.refusedBy === 'app' || d.retrying) return 'replay';
  if (d.refusedBy === 'signature') return signatureMatchesNow ? 'service' : 'resign';
  return 'service';
}

export interface RetryAllOutcome {
  /** retried at the service */
  retried: number;
  /** of those, still failing after the retry */
  stillFailing: number;
  /** replayed from the relay to the app */
  replayed: number;
  /** of those, refused again by the app */
  replayRefused: number;
  /** rejected for their signature, which a retry at the service would carry again: Replay re-signed */
  needResign: number;
  errors: string[];
}

const n = (k: number, one: string, many = `${one}s`) => `${k} ${k === 1 ? one : many}`;

/** Retry All Failed's summary, the service's retries and the relay's replays counted apart. */
export function retryAllSummary(o: RetryAllOutcome): string {
  const parts: string[] = [];
  if (o.retried > 0 || (o.replayed === 0 && o.needResign === 0))
    parts.push(`Retried ${n(o.retried, 'delivery', 'deliveries')} at the service; ${o.stillFailing} still failing`);
  if (o.replayed > 0) parts.push(`replayed ${n(o.replayed, 'delivery', 'deliveries')} the app had refused from the relay; ${o.replayRefused} refused again`);
  if (o.needResign > 0)
    parts.push(
      `${n(o.needResign, 'delivery', 'deliveries')} rejected for ${o.needResign === 1 ? 'its' : 'their'} signature: a retry at the service resends the same signature, so use Replay Re-signed from the relay`,
    );
  if (o.errors.length > 0) parts.push(`${o.errors.length} could not be retried (see logs)`);
  const text = parts.join('; ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}
