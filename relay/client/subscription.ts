// What a relay subscription (./subscribe.ts) is asked and what it tells: its options, its states
// and its handle. Apart from the subscriber itself, so that file holds the connection's logic.
import type { AckMessage, DeliveryMessage, ForwardMessage, ForwardStatus, HelloMessage, TokenScope } from '../../src/core/relay/protocol';

export type SubscriptionState =
  /** `url`: the relay address connected to. */
  | { state: 'connecting'; attempt: number; url: string }
  /**
   * `scope`: what the token reads (relays before it: absent); `sinceAhead`: the relay never gave
   * out the seq this connection resumed after (its data was reset): nothing of what it takes next
   * would come. Said only when two connections running were told so. `url`: the relay address
   * connected to; `relay`: the identity its hello named (relays before it: absent).
   */
  | { state: 'open'; lastSeq: number; url: string; relay?: string; scope?: TokenScope; sinceAhead?: true }
  | { state: 'caught-up'; lastSeq: number }
  /**
   * `refused`: the HTTP status the relay answered the upgrade with (401: wrong token), if it did;
   * `code`: the socket error's code (DEPTH_ZERO_SELF_SIGNED_CERT: a certificate not trusted here);
   * `url`: the address lost; `next`: another address of the relay that answered, connected to at
   * once (delayMs 0).
   */
  | { state: 'reconnecting'; delayMs: number; reason: string; url: string; next?: string; refused?: number; code?: string }
  /** `error`: the subscription cannot go on (another relay answered: the reason names both); else close() was called. */
  | { state: 'closed'; reason: string; error?: true };

/** What a delivery handler resolves to: nothing, or the 2xx status of the app it forwarded the delivery to (sent with the ack). */
export type DeliveryHandled = void | Pick<AckMessage, 'forwarded' | 'skipped'>;

export interface SubscribeOptions {
  /**
   * ws(s)://HOST:PORT/ws (the /ws path is added when missing); several: addresses of one relay
   * (its instances), tried in order, a lost connection going on at once at the next that answers.
   * Each must name the same identity in its hello (HelloMessage.relay), or the subscription ends.
   */
  url: string | readonly string[];
  token: string;
  /** Resume after this seq (default: only new deliveries). */
  since?: number;
  /**
   * Called once, with the first connection's hello (its `scope` says what the token reads), before
   * any delivery is handled: where to resume (a seq), or undefined for where the connection
   * started. A seq other than the hello's `since` connects again at once from there (deliveries
   * of the first connection are not handled). close() may be called from it.
   */
  resumeFrom?: (hello: HelloMessage) => number | undefined;
  channel?: string;
  /** false: summaries only (no headers/body). Default true. */
  bodies?: boolean;
  /**
   * false: the relay is asked not to send ForwardMessages (one message less per delivery for a
   * forwarder that does not show them; a relay that predates this sends them, and onForward
   * still gets them). Default true.
   */
  forwards?: boolean;
  /**
   * Handled in seq order; acked when it resolves. A throw/rejection closes the connection and the
   * delivery is re-sent after reconnect. Resolving to `{ forwarded: { status } }` (a forwarder's
   * app answered 2xx) tells the relay, which records it as the delivery's forward state.
   */
  onDelivery: (delivery: DeliveryMessage['delivery']) => DeliveryHandled | Promise<DeliveryHandled>;
  /**
   * Deliveries handed to onDelivery at once (default 1: each waits for the one before it). Above
   * 1 they start in seq order and may finish in any; a delivery is acknowledged, and lastSeq moves
   * past it, only once every delivery before it has finished too, so a reconnect or restart
   * resumes before any that had not. At most MAX_CONCURRENCY.
   */
  concurrency?: number;
  /**
   * A delivery the relay sends again on request (ReplayDeliveryMessage), outside the seq order and
   * whatever was acknowledged; not acknowledged, and the resume point does not move. Its result
   * goes back with `report(seq, { …, replay: true })`. Absent: replays are ignored.
   */
  onReplay?: (delivery: DeliveryMessage['delivery']) => void | Promise<void>;
  onForward?: (message: ForwardMessage) => void;
  /**
   * A message beside the ordered stream that was not what its type says (one line; ignored). A bad
   * hello or delivery closes the connection instead: the line is the 'reconnecting' state's reason.
   */
  onBadMessage?: (line: string) => void;
  onState?: (state: SubscriptionState) => void;
  /** Send the token as subprotocol instead of an Authorization header (browsers cannot set headers). */
  tokenIn?: 'header' | 'subprotocol';
  pingIntervalMs?: number;
  pongTimeoutMs?: number;
  backoff?: { initialMs?: number; maxMs?: number };
  headers?: Record<string, string>;
  /**
   * Certificate authorities to trust for wss:// instead of Node's default store. Node's own
   * NODE_EXTRA_CA_CERTS needs nothing here; the editor passes it explicitly because VS Code's
   * extension host replaces the default store of https requests with the system's.
   */
  ca?: (string | Buffer)[];
}

export interface Subscription {
  /** Last delivery handled and acked. */
  readonly lastSeq: number;
  /**
   * Tells the relay a later result of a delivery acknowledged while its forward was still being
   * retried (ForwardedMessage); sent now, or once the connection is open again.
   */
  report(seq: number, result: { status: number; state: ForwardStatus; replay?: boolean }): void;
  close(): void;
  /** Resolves after close(). */
  readonly closed: Promise<void>;
}
