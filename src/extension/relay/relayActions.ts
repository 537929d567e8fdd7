// What the editor asks of the relay in use beyond reading it: Replay Delivery (to the app that
// forwards its channel, posted byte-exact and with the https trust forwarding has, else by the
// relay to its own targets; re-signed with a secret for a delivery the relay rejected) and Retry
// pending now (the relay's pending forwards, and the editor's own retrying ones). A replay the
// editor posts itself is reported to the relay, so the delivery's row shows its outcome (✓ after
// a refusal).
import { RelayApiError } from '../../../relay/client/apiError';
import type { ReplayResponse } from '../../../relay/client';
import { SUBSCRIBER_TARGET } from '../../core/relay/protocol';
import type { ForwardSession } from '../../core/tree';
import { loadRelayClient } from '../deps';
import { UserError } from '../errors';
import type { RelayConnection } from './connection';
import type { EditorForwarder } from './forwarding';
import { setupAttempt } from './setupForwarding';

export interface ActionsHost {
  /** The connection in use; a UserError when there is none. */
  connection(): RelayConnection;
  /** The app a delivery of `channel` and `event` goes to (RelayManager.targetFor). */
  targetFor(channel: string, event?: string): string | undefined;
  /** The editor's forwarder on the connection in use, when it forwards. */
  forwarder(): EditorForwarder | undefined;
  /** The forward set-ups of the relay in use (their apps' https trust). */
  sessions(): readonly ForwardSession[];
}

export class RelayActions {
  constructor(private readonly relay: ActionsHost) {}

  /**
   * Replay Delivery: to the app that forwards the delivery's channel (its set-up's, or a channel
   * token's forward URL), posted by the editor byte-exact and with the https trust forwarding has
   * (setupAttempt: the CA file setting, the set-up's Skip verification; any token may); a
   * delivery of a channel nobody here forwards goes to the relay's own targets (POST …/replay).
   */
  async replayDelivery(seq: number, opts: { resignSecret?: string } = {}): Promise<{ to?: string; response: ReplayResponse }> {
    const conn = this.relay.connection();
    const d = await conn.getDelivery(seq);
    if (opts.resignSecret !== undefined && d.truncated)
      throw new UserError(
        `Delivery #${seq} was rejected and the relay kept only the first ${d.truncated.kept} of its ${d.size} bytes: it cannot be replayed re-signed. Send the event again from the service.`,
      );
    const to = this.relay.targetFor(d.channel, d.event);
    if (!to) {
      const targets = d.forward.filter((f) => f.target !== SUBSCRIBER_TARGET);
      if (targets.length === 0)
        throw new UserError(
          `Delivery #${seq} (channel ${d.channel}) goes to no app: the relay forwards it nowhere and no forward set-up here takes channel ${d.channel}. Run "Forward Webhooks to Local App…" for it first.`,
        );
      return { response: await conn.replay(seq, opts.resignSecret !== undefined ? { resignSecret: opts.resignSecret } : {}) };
    }
    const relayClient = await loadRelayClient();
    const send = setupAttempt(relayClient, this.relay.sessions());
    const r = await send(d, to, new AbortController().signal, opts.resignSecret !== undefined ? { resignSecret: opts.resignSecret } : {});
    // The relay records the replay's outcome as the subscriber's forward state: the row follows it.
    if (r.status !== undefined) conn.report(seq, { status: r.status, state: r.ok ? 'ok' : 'failed', replay: true });
    const attempt = { target: to, at: new Date().toISOString(), status: r.status, ok: r.ok, durationMs: r.durationMs, error: r.error, replay: true };
    return { to, response: { attempts: [attempt] } };
  }

  /**
   * Retry pending now: the relay attempts its pending forwards at once (POST /api/forward/retry),
   * and a delivery the editor itself is forwarding is tried again now.
   */
  async retryPending(filter: { channel?: string } = {}): Promise<{ queued: number; editor: boolean }> {
    const conn = this.relay.connection();
    const editor = this.relay.forwarder()?.retryNow() ?? false;
    try {
      const { queued } = await conn.api.retryPending(filter);
      return { queued, editor };
    } catch (err) {
      // A channel token may not ask the relay (403); the editor's own retry still happened.
      if (err instanceof RelayApiError && err.status === 403 && this.relay.forwarder()) return { queued: 0, editor };
      throw err;
    }
  }
}
