// The end of a webhook secret's rotation: the relay's channel verifies with both the old and the
// new secret (PATCH addSecrets) while the service switches; once a delivery on the channel verifies
// with the new one (checked here on the journal's raw bytes), or after a grace period, the channel
// keeps only the new secret (PATCH secrets). Nothing is rejected in between.
import type * as vscode from 'vscode';
import type { UpdateChannelSecrets } from '../../core/relay/protocol';
import { SIGNATURE_HEADER, verify } from '../../core/signing';
import type { RelayManager } from '../relay/relayManager';

export type RotationEnd = 'verified' | 'grace' | 'stopped';

export interface RotationOptions {
  relay: Pick<RelayManager, 'onDidChange' | 'live' | 'getDelivery'>;
  api: { updateChannelSecrets(name: string, change: UpdateChannelSecrets): Promise<unknown> };
  channel: string;
  secret: string;
  /** Journal entries up to this seq are older than the rotation. */
  afterSeq: number;
  graceMs: number;
  log: (line: string) => void;
}

export class SecretRotation implements vscode.Disposable {
  readonly done: Promise<RotationEnd>;
  private finish!: (end: RotationEnd) => void;
  private readonly sub: { dispose(): void };
  private readonly timer: ReturnType<typeof setTimeout>;
  private readonly checked = new Set<number>();
  private ended = false;

  constructor(private readonly o: RotationOptions) {
    this.done = new Promise((resolve) => (this.finish = resolve));
    this.sub = o.relay.onDidChange(() => void this.check());
    this.timer = setTimeout(() => void this.end('grace'), o.graceMs);
    void this.check();
  }

  /** Looks at the channel's new verified deliveries: one signed with the new secret ends the rotation. */
  private async check(): Promise<void> {
    for (const d of this.o.relay.live.newestFirst(200)) {
      if (this.ended || d.seq <= this.o.afterSeq || d.channel !== this.o.channel || d.verification !== 'verified' || this.checked.has(d.seq)) continue;
      this.checked.add(d.seq);
      try {
        const full = await this.o.relay.getDelivery(d.seq);
        const body = Buffer.from(full.bodyBase64, 'base64');
        if (verify(body, full.headers[SIGNATURE_HEADER.toLowerCase()], [this.o.secret]).ok) return this.end('verified');
      } catch (err) {
        this.o.log(`rotation of channel ${this.o.channel}: reading #${d.seq}: ${(err as Error).message}`);
      }
    }
  }

  private async end(why: RotationEnd): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.sub.dispose();
    clearTimeout(this.timer);
    try {
      await this.o.api.updateChannelSecrets(this.o.channel, { secrets: [this.o.secret] });
      this.o.log(
        `rotation of channel ${this.o.channel}: the old secret is dropped (${why === 'verified' ? 'a delivery verified with the new one' : 'the grace period ended'})`,
      );
    } catch (err) {
      this.o.log(`rotation of channel ${this.o.channel}: the old secret could not be dropped (${(err as Error).message}); both still verify`);
    }
    this.finish(why);
  }

  /** Stops waiting; both secrets stay on the channel. */
  dispose(): void {
    if (this.ended) return;
    this.ended = true;
    this.sub.dispose();
    clearTimeout(this.timer);
    this.finish('stopped');
  }
}
