// The relay's wire types: REST bodies and WebSocket messages. Shared by relay/server and relay/client.
// Pure types and constants only (no I/O), so the editor can import it freely.

export type Verification = 'verified' | 'unverified' | 'rejected';
/**
 * 'skipped': a forward subscriber's filter (`forward --events`, `--route`) left the delivery out;
 * it is neither delivered nor failed. Relays before it never record it.
 */
export type ForwardStatus = 'pending' | 'ok' | 'failed' | 'skipped';

/** One forward attempt to one target. */
export interface ForwardAttempt {
  target: string;
  /** ISO 8601 time the attempt started. */
  at: string;
  /** HTTP status of the target's answer; absent when there was no answer. */
  status?: number;
  ok: boolean;
  durationMs: number;
  error?: string;
  /** True for attempts made by POST /api/deliveries/<seq>/replay. */
  replay?: boolean;
  /** The Retry-After header of a non-2xx answer, as sent (forwardPolicy.parseRetryAfter reads it; not journaled). */
  retryAfter?: string;
}

export interface ForwardState {
  target: string;
  status: ForwardStatus;
  lastStatus?: number;
  attempts: number;
  /** ISO time of the next automatic attempt while pending. */
  nextAttemptAt?: string;
}

export interface RelayDeliverySummary {
  seq: number;
  channel: string;
  /** ISO 8601 receipt time. */
  receivedAt: string;
  verification: Verification;
  /** Why a delivery was rejected (words), when verification is 'rejected'. */
  reason?: string;
  /** From X-Service-Event. */
  event?: string;
  /** From X-Service-Delivery. */
  deliveryId?: string;
  /** Body size in bytes, as received. */
  size: number;
  /**
   * Set when the relay kept only the first `kept` bytes of the body (a rejected delivery over
   * 64 KiB): `sha256` is the hex digest of the whole body as received.
   */
  truncated?: { kept: number; sha256: string };
  forward: ForwardState[];
}

/** GET /api/deliveries/<seq>: the summary plus the request as received and every attempt. */
export interface RelayDelivery extends RelayDeliverySummary {
  /** Request headers as received (names lower-case; repeated headers joined with ", "). */
  headers: Record<string, string>;
  bodyBase64: string;
  attempts: ForwardAttempt[];
  /**
   * A rejected delivery only: the signature doctor's findings, run by the relay with the channel's
   * current secrets (why the signature did not match: a trailing newline, re-serialized JSON, …).
   */
  explanation?: string[];
  /**
   * A rejected delivery only: whether the signature it carried verifies with the channel's secrets
   * now (the channel's secret was changed to the webhook's). The service's retry resends that same
   * signature, so only then does a retry at the service pass; else it is replayed re-signed.
   */
  signatureMatchesNow?: boolean;
}

export interface ChannelStatus {
  name: string;
  received: number;
  verified: number;
  unverified: number;
  rejected: number;
  forwarded: number;
  failed: number;
  /** Deliveries still waiting for a forward to at least one target. */
  pending?: number;
  /**
   * Deliveries refused (403) by the source allow-list since the relay started: their source address
   * is not in --allow-cidr / --public's networks. Never journaled. Absent: none (or an older relay).
   */
  refused?: number;
  /** Where the service posts to this channel (the relay's --public-url when set); older relays: absent. */
  ingressUrl?: string;
}

/** GET /api/status */
export interface RelayStatus {
  port: number;
  /**
   * The base of this relay's ingress URLs (`<ingressBase>/hooks/<channel>`): its --public-url, else
   * the address it listens on. The editor matches webhook URLs against it. Older relays: absent.
   */
  ingressBase?: string;
  channels: ChannelStatus[];
  lastSeq: number;
  /**
   * Damage the journal found at start-up (records skipped as corrupt, torn-tail bytes cut, a
   * damaged seq file, acknowledged deliveries lost with a sealed segment cut short or deleted).
   */
  journal?: { corruptRecords: number; corruptBytes: number; truncatedBytes: number; seqFileDamaged?: boolean; lostDeliveries?: number; lost?: string };
}

/**
 * GET /api/deliveries?channel=&status=&since=&before=&limit= (newest first). `since` keeps
 * seq > since; `before` keeps seq < before (the cursor to page back: the smallest seq of the
 * previous page). `limit` defaults to 100, at most 10,000; 0 gives an empty list.
 */
export interface DeliveryListQuery {
  channel?: string;
  /** A verification ('verified'|'unverified'|'rejected') or forward status ('pending'|'ok'|'failed'). */
  status?: Verification | ForwardStatus;
  since?: number;
  before?: number;
  limit?: number;
}
export interface DeliveryList {
  deliveries: RelayDeliverySummary[];
  lastSeq: number;
}

/** POST /api/deliveries/<seq>/replay */
export interface ReplayRequest {
  /**
   * Send to this URL instead of the delivery's targets (admin token only), or REPLAY_TO_SUBSCRIBERS:
   * send it again to the subscribers connected to its channel (the admin token or the channel's
   * own), which forward it to their app again (ReplayDeliveryMessage); answered 202 with
   * SubscriberReplayResponse, or 409 when none is connected.
   */
  to?: string;
  /** Re-sign the body with this secret (replaces X-Service-Signature). */
  resignSecret?: string;
}
export interface ReplayResponse {
  attempts: ForwardAttempt[];
}
/** ReplayRequest.to: replay to the channel's connected subscribers. */
export const REPLAY_TO_SUBSCRIBERS = 'subscribers';
/** 202 from POST /api/deliveries/<seq>/replay with { to: 'subscribers' }: the results come as the subscribers' `forwarded` reports. */
export interface SubscriberReplayResponse {
  /** Subscribers the delivery was sent to again (at least 1). */
  subscribers: number;
}

/**
 * POST /api/forward/retry: "retry pending now". Pending forwards waiting for their next scheduled
 * attempt are queued at once, in seq order; both filters absent: every channel and target.
 */
export interface RetryPendingRequest {
  /** Only deliveries of this channel. */
  channel?: string;
  /** Only forwards to this target URL (as configured). */
  target?: string;
}
export interface RetryPendingResponse {
  /** Pending forwards queued now (those already queued or in flight are not counted). */
  queued: number;
}

/** POST /api/prune */
export interface PruneRequest {
  keep?: number;
  olderThanMs?: number;
}
export interface PruneResponse {
  removed: number;
  remaining: number;
}

// ---- Channels (admin token only, except GET /api/channels/<own name> with a channel token) ----

/** POST /api/channels */
export interface CreateChannelRequest {
  /** src/core/relay/channelName.ts: letters, digits, '.', '_', '-'; at most 64; no '..' or trailing '.'; not 'default' nor a --config channel. */
  name: string;
  /** Signing secrets (non-empty strings; rotation: several). A `--public` relay requires at least one. */
  secrets: string[];
}
/** 201 from POST /api/channels. The token is shown only in this answer (the relay keeps its hash). */
export interface CreatedChannel {
  name: string;
  /** `<public-url>/hooks/<name>`: the URL to give the service. */
  ingressUrl: string;
  /** Scoped to this channel: its deliveries, its stream, nothing else. */
  token: string;
  /** Set when a secret is weak (under 16 bytes; a --public relay refuses those). */
  warning?: string;
}
/**
 * PATCH /api/channels/<name> (admin): exactly one of the two. 200 ChannelInfo, with `warning` for a
 * short secret or none left. `secrets: []` (unsigned deliveries accepted) needs `allowUnsigned: true`.
 */
export type UpdateChannelSecrets = { secrets: string[]; allowUnsigned?: true } | { addSecrets: string[] };
/**
 * Where a channel is defined: the channels API, --config, the relay-wide `default`, or an
 * `implicit` channel (any other name a local relay accepted, with the relay-wide settings).
 */
export type ChannelSource = 'api' | 'config' | 'default' | 'implicit';
/** GET /api/channels → { channels: ChannelInfo[] } (never a token or a secret); implicit ones once they have deliveries. */
export interface ChannelInfo extends ChannelStatus {
  source: ChannelSource;
  ingressUrl: string;
  /** How many signing secrets it has (0: deliveries are accepted unverified). */
  secrets: number;
  createdAt?: string;
}
export interface ChannelList {
  channels: ChannelInfo[];
}

/** POST /hooks/<channel> answers 200 with this after the journal write. */
export interface IngressAccepted {
  seq: number;
  verification: 'verified' | 'unverified';
}
/** Every error answer: 400/401/403/404/408/413/… */
export interface ErrorBody {
  error: string;
}

// ---- WebSocket /ws ----
// Auth: `Authorization: Bearer <token>` or subprotocol `service-hooks.token.<token>` (never the URL).
// Query: `since=<seq>` replays every delivery with a larger seq, then streams live;
//        `channel=<name>` filters; `bodies=0` sends summaries without headers/body;
//        `bodies=binary` sends a large body (one the relay streams) as raw binary messages after
//        its DeliveryMessage (see `bodyFollows`) instead of base64 inside it: the client holds
//        the body once, not its base64 in frames as well (older relays ignore it: base64);
//        `forwards=0` sends no ForwardMessage (a forwarder that does not show them: one message
//        less per delivery; older relays ignore the parameter and send them).

export const WS_PATH = '/ws';
export const TOKEN_SUBPROTOCOL_PREFIX = 'service-hooks.token.';

/**
 * Close code for a subscriber that fell too far behind: more unsent bytes queued for it than the
 * relay allows while its connection was not draining. Nothing is lost: reconnect with
 * `since=<last acknowledged seq>` (the client in relay/client does so by itself).
 */
export const WS_CLOSE_SLOW_SUBSCRIBER = 4008;
/** HTTP status refusing a WebSocket upgrade when the token already has its maximum of subscribers. */
export const WS_TOO_MANY_SUBSCRIBERS_STATUS = 429;

/**
 * What a connection's token reads: every channel (the admin token), or one channel identity (a
 * channel token: its name, and the generation of the channel created under that name; absent for
 * channels without one). A forwarder keys its resume point by it: two tokens never share one.
 */
export type TokenScope = { kind: 'admin' } | { kind: 'channel'; channel: string; generation?: string };

/** Server → client, first message. */
export interface HelloMessage {
  type: 'hello';
  /** The admin token's relay-wide last seq; a channel token's own channel's. */
  lastSeq: number;
  since: number;
  /** What the token reads. Relays before it: absent. */
  scope?: TokenScope;
  /**
   * The store this relay serves, the same on every instance of it (a file journal's id kept in
   * its data folder; a JetStream stream, its cluster and when it was created): a forwarder keeps
   * its resume point per relay identity and scope, not per address. Relays before it: absent.
   */
  relay?: string;
  /**
   * Set when the asked `since` is beyond every seq this relay ever gave out: its data was reset,
   * or it is another relay. Nothing with a seq at or before `since` will be streamed, so a client
   * resuming there would miss what the relay takes next. Relays before it: absent.
   */
  sinceAhead?: true;
}
/** Server → client: one delivery, in seq order, each exactly once per connection. */
export interface DeliveryMessage {
  type: 'delivery';
  delivery: RelayDeliverySummary &
    Partial<Pick<RelayDelivery, 'headers' | 'bodyBase64'>> & {
      /**
       * `bodies=binary` only, in place of bodyBase64: the body's length in bytes. The next
       * binary messages on the connection are its bytes, in order, until this many have come;
       * no other message comes between them.
       */
      bodyFollows?: number;
    };
}
/**
 * Server → client: a delivery sent again on request (POST /api/deliveries/<seq>/replay with
 * { to: 'subscribers' }), whatever the subscriber acknowledged: a forwarder posts it to its app
 * once more, outside the seq order and without moving its resume point, and reports the app's
 * answer with a ForwardedMessage whose `replay` is true. Older clients ignore the type.
 */
export interface ReplayDeliveryMessage {
  type: 'replay';
  delivery: DeliveryMessage['delivery'];
}
/** Server → client: a forward attempt was made (live only, not replayed). */
export interface ForwardMessage {
  type: 'forward';
  seq: number;
  attempt: ForwardAttempt;
  state: ForwardState;
}
/** Server → client: the replay reached the live head. */
export interface CaughtUpMessage {
  type: 'caught-up';
  lastSeq: number;
}
/** Server → client: a message of the client's was refused (e.g. an ack whose forwarded.status is no HTTP status); nothing of it was applied. */
export interface ErrorMessage {
  type: 'error';
  error: string;
}
export type ServerMessage = HelloMessage | DeliveryMessage | ReplayDeliveryMessage | ForwardMessage | CaughtUpMessage | ErrorMessage;

/** Client → server: the client has handled every delivery up to and including `seq`. */
export interface AckMessage {
  type: 'ack';
  seq: number;
  /**
   * Set by a client that forwarded the delivery to an app (`service-hooks forward`, the editor):
   * the app's status. The relay records it as the forward state of target SUBSCRIBER_TARGET, by
   * the forwarding rules (src/core/relay/forwardPolicy): 2xx ok; 5xx, 408, 429 pending (the
   * client retries it); any other status failed. An integer from 100 to 599; anything else
   * refuses the whole ack with an `error` message.
   */
  forwarded?: { status: number };
  /**
   * Set by a forwarder whose filter (`forward --events`, `--exclude-events`, `--route`) left the
   * delivery out: the relay records it as skipped under SUBSCRIBER_TARGET (never delivered nor
   * failed). Relays before it ignore the field and take the plain ack.
   */
  skipped?: 'filter';
}

/**
 * Client → server: a later result of a delivery this subscriber acknowledged while it was still
 * retrying it (ForwardEngine): recorded like an ack's `forwarded`, with the state the client says
 * (`failed` when it gave up, or the user skipped it). Only for a delivery of the subscriber's
 * channel that was sent to it on this connection.
 */
export interface ForwardedMessage {
  type: 'forwarded';
  seq: number;
  status: number;
  state: ForwardStatus;
  /** The result of a ReplayDeliveryMessage: recorded as a replay attempt (a non-2xx leaves the state as it was). */
  replay?: boolean;
}

/** The forward-state target under which the relay records a delivery a subscriber forwarded and acknowledged. */
export const SUBSCRIBER_TARGET = 'subscriber';
export type ClientMessage = AckMessage | ForwardedMessage;

/** Request headers that are never forwarded (hop-by-hop or recomputed). */
export const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'trailers',
  'upgrade',
  'expect',
  'host',
  'content-length',
  'proxy-authorization',
  'proxy-authenticate',
  'proxy-connection',
]);

/** Header names a `Connection:` header lists (also hop-by-hop, RFC 9110 §7.6.1), lower-case. */
export function connectionListed(pairs: Iterable<[string, string]>): Set<string> {
  const out = new Set<string>();
  // The length first: this runs for every forwarded delivery, over every header.
  for (const [k, v] of pairs)
    if (k.length === 10 && k.toLowerCase() === 'connection') for (const n of v.split(',')) if (n.trim()) out.add(n.trim().toLowerCase());
  return out;
}

export function isHopByHop(name: string): boolean {
  const n = name.toLowerCase();
  return HOP_BY_HOP.has(n) || n.startsWith('proxy-');
}
