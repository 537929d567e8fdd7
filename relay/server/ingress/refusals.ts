// Deliveries refused by the source allow-list (--allow-cidr, --public): counted per channel (shown
// in /api/status, /api/channels and the editor's Relay view) and logged with the source address,
// at most one line per source a minute (a flood from one address writes one line, then a count).
// The counts live in memory: a refused delivery is never journaled (nothing of it is kept).
import type { ChannelStatus } from '../../../src/core/relay/protocol';

/** Sources remembered for the log's rate limit; past it the oldest is forgotten. */
const MAX_SOURCES = 1000;
/** Channels counted by name; refusals to more names are counted under OTHER. */
const MAX_CHANNELS = 10_000;
const OTHER = '(other)';

export class SourceRefusals {
  private readonly byChannel = new Map<string, number>();
  private readonly lastLine = new Map<string, { at: number; since: number }>();

  constructor(
    private readonly log: (line: string) => void,
    private readonly now: () => number = Date.now,
    private readonly everyMs = 60_000,
  ) {}

  /** One refused delivery to `channel` (undefined: a channel the relay does not serve) from `address`. */
  record(channel: string | undefined, address: string | undefined): void {
    const key = channel !== undefined && (this.byChannel.has(channel) || this.byChannel.size < MAX_CHANNELS) ? channel : OTHER;
    this.byChannel.set(key, (this.byChannel.get(key) ?? 0) + 1);
    const source = address ?? 'an unknown address';
    const t = this.now();
    const last = this.lastLine.get(source);
    if (last && t - last.at < this.everyMs) {
      last.since++;
      return;
    }
    const more = last && last.since > 0 ? ` (${last.since} more from it since the last line)` : '';
    this.lastLine.delete(source);
    if (this.lastLine.size >= MAX_SOURCES) this.lastLine.delete(this.lastLine.keys().next().value!);
    this.lastLine.set(source, { at: t, since: 0 });
    this.log(
      `refused a delivery to ${channel === undefined ? 'an unknown channel' : `channel '${channel}'`} from ${source}: not in the source allow-list${more}`,
    );
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
