// Token buckets per source address (and one for all sources together) for rejected deliveries:
// a sender whose deliveries fail verification gets 429 once its bucket is empty, and nothing of
// those is journaled. Verified and unverified deliveries never take tokens.
import { isIP } from 'node:net';

export interface Rate {
  /** Tokens a full bucket holds (deliveries in a burst). */
  burst: number;
  /** Tokens added per minute. */
  perMinute: number;
}

export interface RejectLimits {
  /** Per source address (IPv6: per /64). Default 20 in a burst, then 10 a minute. */
  perSource?: Rate;
  /** All sources together. Default 100 in a burst, then 60 a minute. */
  total?: Rate;
}

export const DEFAULT_REJECT_LIMITS: Required<RejectLimits> = {
  perSource: { burst: 20, perMinute: 10 },
  total: { burst: 100, perMinute: 60 },
};

/** Buckets kept at most; full buckets are dropped first (they hold no state worth keeping). */
const MAX_SOURCES = 10_000;

interface Bucket {
  tokens: number;
  at: number;
}

export class RejectLimiter {
  private readonly sources = new Map<string, Bucket>();
  private readonly all: Bucket;
  private readonly perSource: Rate;
  private readonly total: Rate;

  constructor(
    limits: RejectLimits = {},
    private readonly now: () => number = Date.now,
  ) {
    this.perSource = limits.perSource ?? DEFAULT_REJECT_LIMITS.perSource;
    this.total = limits.total ?? DEFAULT_REJECT_LIMITS.total;
    this.all = { tokens: this.total.burst, at: now() };
  }

  /** Takes a token for one rejected delivery from `address`; false: answer 429 and journal nothing. */
  take(address: string | undefined): boolean {
    const key = sourceKey(address);
    const t = this.now();
    let b = this.sources.get(key);
    if (!b) {
      if (this.sources.size >= MAX_SOURCES) this.evict(t);
      b = { tokens: this.perSource.burst, at: t };
      this.sources.set(key, b);
    }
    refill(b, this.perSource, t);
    refill(this.all, this.total, t);
    if (b.tokens < 1 || this.all.tokens < 1) return false;
    b.tokens--;
    this.all.tokens--;
    return true;
  }

  /** Seconds until `address` may be rejected again (for Retry-After). */
  retryAfter(address: string | undefined): number {
    const b = this.sources.get(sourceKey(address));
    const wait = (bucket: Bucket | undefined, rate: Rate) => (bucket && bucket.tokens < 1 ? ((1 - bucket.tokens) * 60) / rate.perMinute : 0);
    return Math.max(1, Math.ceil(Math.max(wait(b, this.perSource), wait(this.all, this.total))));
  }

  private evict(t: number): void {
    for (const [k, b] of this.sources) {
      refill(b, this.perSource, t);
      if (b.tokens >= this.perSource.burst) this.sources.delete(k);
    }
    // Still full of busy senders: forget the oldest (a fresh bucket is the worst they gain).
    for (const k of this.sources.keys()) {
      if (this.sources.size < MAX_SOURCES) break;
      this.sources.delete(k);
    }
  }
}

function refill(b: Bucket, rate: Rate, t: number): void {
  if (t > b.at) b.tokens = Math.min(rate.burst, b.tokens + ((t - b.at) / 60_000) * rate.perMinute);
  b.at = t;
}

/** IPv4 addresses as they are; IPv6 by their /64 (one host usually holds a whole /64). */
function sourceKey(address: string | undefined): string {
  if (!address) return '?';
  const a = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  if (isIP(a) !== 6) return a;
  return expand6(a).slice(0, 4).join(':') + '::/64';
}

function expand6(a: string): string[] {
  const [head, tail] = a.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  return [...h, ...Array<string>(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t];
}
