// Deliveries refused by the source allow-list (--allow-cidr, --public): counted per channel (shown
// in /api/status, /api/channels and the editor's Relay view). Logged, rate-limited per source, and
// counted by reason like every other refusal (../access/refusalLog.ts).
// The counts live in memory: a refused delivery is never journaled (nothing of it is kept).
import type { ChannelStatus } from '../../../src/core/relay/protocol';

/** Channels counted by name; refusals to more names are counted under OTHER. */
const MAX_CHANNELS = 10_000;
const OTHER = '(other)';

export class SourceRefusals {
  private readonly byChannel = new Map<string, number>();

  /** One refused delivery to `channel` (undefined: a channel the relay does not serve). */
  record(channel: string | undefined): void {
    const key = channel !== undefined && (this.byChannel.has(channel) || this.byChannel.size < MAX_CHANNELS) ? channel : OTHER;
    this.byChannel.set(key, (this.byChannel.get(key) ?? 0) + 1);
  }

  /** Refused deliveries to `channel` since the relay started. */
  count(channel: string): number {
    return this.byChannel.get(channel) ?? 0;
  }

  /** `counts` with each channel's `refused`, plus a row for each channel that has only refusals. */
  merge<T extends ChannelStatus>(counts: readonly T[], blank: (row: ChannelStatus) => T): T[] {
    const out = counts.map((c) => (this.byChannel.has(c.name) ? { ...c, refused: this.count(c.name) } : c));
    const known = new Set(counts.map((c) => c.name));
    for (const [name, refused] of this.byChannel) {
      if (known.has(name) || name === OTHER) continue;
      out.push(blank({ name, received: 0, verified: 0, unverified: 0, rejected: 0, forwarded: 0, failed: 0, refused }));
    }
    return out;
  }
}
