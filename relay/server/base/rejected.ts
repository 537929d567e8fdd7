// What the journal keeps of a rejected (401) delivery: its headers, its size and the sha256 of its
// body, and at most the first 64 KiB of the body (what the signature doctor needs to explain the
// usual mistakes), so unsigned traffic cannot fill the disk at the rate of the body cap.
import { createHash } from 'node:crypto';
import type { RelayDeliverySummary } from '../../../src/core/relay/protocol';
import type { DeliveryMeta } from './storeTypes';

/**
 * Rejected deliveries kept (the newest; default of --keep-rejected). They have their own
 * retention: --keep counts only accepted deliveries, so rejected traffic never evicts one.
 */
export const REJECTED_KEEP = 1000;

/** Bytes of a rejected delivery's body the journal keeps. */
export const REJECTED_BODY_KEEP = 64 * 1024;

/** The part of a rejected body to store, and what was received when that is only a prefix. */
export function keepOfRejected(body: Buffer): { stored: Buffer; received?: DeliveryMeta['received'] } {
  if (body.length <= REJECTED_BODY_KEEP) return { stored: body };
  return {
    stored: body.subarray(0, REJECTED_BODY_KEEP),
    received: { size: body.length, sha256: createHash('sha256').update(body).digest('hex') },
  };
}

/** The summary's size fields for a record whose stored body is `stored` bytes. */
export function sizeFields(meta: Pick<DeliveryMeta, 'received'>, stored: number): Pick<RelayDeliverySummary, 'size' | 'truncated'> {
  if (!meta.received) return { size: stored };
  return { size: meta.received.size, truncated: { kept: stored, sha256: meta.received.sha256 } };
}
