// Ingress: POST /hooks/<channel>. Allow-list, body cap, signature check on the raw bytes, the
// durable journal write, and only then the answer (200 { seq, verification } or 401 { error }).
// A rejected delivery is journaled without most of its body (../base/rejected.ts), at a limited rate per
// source address (./rateLimit.ts: 429 past it).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DELIVERY_HEADER, describeVerifyFailure, SIGNATURE_HEADER, verify } from '../../../src/core/signing';
import type { Verification } from '../../../src/core/relay/protocol';
import { readRaw, sendError, sendTooLarge } from '../../shared/http';
import { clientAddress, type SourceAllowList } from '../access/access';
import type { Lookup } from '../channels/channelDirectory';
import { CHANNEL_RE } from '../channels/channels';
import { CHANNEL_NAME_RULE } from '../../../src/core/relay/channelName';
import type { Forwarder } from '../forwarding/forwarder';
import type { RejectLimiter } from './rateLimit';
import type { SourceRefusals } from './refusals';
import type { RefusalLog, RefusalReason } from '../access/refusalLog';
import { keepOfRejected } from '../base/rejected';
import type { RelayStore } from '../base/storeTypes';
import { StoreUnavailableError } from '../base/errors';
import type { LogFields } from '../base/log';

export interface IngressContext {
  /** Only writes (the metrics count and time them: relay/server/metrics). */
  store: Pick<RelayStore, 'begin' | 'add'>;
  forwarder: Pick<Forwarder, 'deliver'>;
  /** The WebSocket subscribers: given the bytes of a delivery being journaled (SubscriberHub.hold). */
  subscribers?: { hold(seq: number, headers: [string, string][], body: Buffer): void };
  /** The channel a name refers to and its settings, or why there is none (404): relay/server/channels/channelDirectory.ts. */
  channels: { lookup(name: string): Lookup };
  allow: SourceAllowList;
  /** The reverse proxies whose X-Forwarded-For counts (relay/server/access/access.ts clientAddress); undefined: none. */
  trustProxy: SourceAllowList | undefined;
  maxBody: number;
  rejectLimiter: RejectLimiter;
  /** Counts per channel the deliveries the allow-list refused (./refusals.ts). */
  refusals?: Pick<SourceRefusals, 'record'>;
  /** Logs and counts every refusal under its reason (../access/refusalLog.ts). */
  refusalLog?: Pick<RefusalLog, 'record'>;
  /** The relay's log: a delivery the store could not keep (503) is named here by its id. */
  log?: (line: string, fields?: LogFields) => void;
}

export type IngressHandler = (req: IncomingMessage, res: ServerResponse, channel: string) => Promise<void>;

export function createIngress(ctx: IngressContext): IngressHandler {
  const tooLarge = `body exceeds the ${ctx.maxBody}-byte limit`;
  /** Logged and counted; the channel is named only once it passed CHANNEL_RE (nothing else reaches a log line). */
  const refused = (req: IncomingMessage, reason: RefusalReason, channel?: string, source = clientAddress(req, ctx.trustProxy)) =>
    ctx.refusalLog?.record(source, reason, channel === undefined ? 'a delivery' : `a delivery to channel '${channel}'`);
  return async function ingress(req, res, channel) {
    if (!CHANNEL_RE.test(channel)) return (refused(req, 'bad-request'), sendError(res, 400, `invalid channel name (${CHANNEL_NAME_RULE})`));
    const browser = fromBrowser(req);
    if (browser) {
      req.resume();
      refused(req, 'browser', channel);
      return sendError(res, 403, browser, undefined, { connection: 'close' });
    }
    const source = clientAddress(req, ctx.trustProxy);
    if (!ctx.allow.allows(source)) {
      req.resume();
      // Counted under its channel only when the relay serves it; the answer is the same either way.
      ctx.refusals?.record(ctx.channels.lookup(channel).ok ? channel : undefined);
      refused(req, 'allow-list', channel, source);
      return sendError(res, 403, `source address ${source ?? '(unknown)'} is not in the allow-list`, undefined, { connection: 'close' });
    }
    // After the allow-list, so a source outside it cannot probe which channels exist.
    const found = ctx.channels.lookup(channel);
    if (!found.ok) {
      req.resume();
      refused(req, 'unknown-channel', channel, source);
      return sendError(res, 404, found.error, undefined, { connection: 'close' });
    }
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > ctx.maxBody)
      return (refused(req, 'too-large', channel, source), sendError(res, 413, tooLarge, undefined, { connection: 'close' }));
    const body = await readRaw(req, ctx.maxBody);
    if (body === 'aborted') return; // the client went away
    if (body === 'too-large') return (refused(req, 'too-large', channel, source), sendTooLarge(req, res, tooLarge));
    const { headers, signature } = pairs(req.rawHeaders);
    const { verification, reason } = check(body, signature, found.settings.secrets);
    const gen = found.gen === undefined ? {} : { gen: found.gen };
    if (verification === 'rejected') return rejected(req, res, { channel, ...gen }, headers, body, reason!);
    const targets = found.settings.forward;
    const { seq, durable } = ctx.store.begin({ channel, ...gen, verification, headers, targets }, body);
    // The first forward attempt runs in parallel with the journal write; the answer waits for the write.
    ctx.forwarder.deliver(seq, targets, body, headers, durable);
    ctx.subscribers?.hold(seq, headers, body);
    // A store whose seq comes with durability (JetStream's publish ack) gives it here.
    const stored = await durable.catch((err: Error) => {
      if (!(err instanceof StoreUnavailableError)) throw err;
      ctx.log?.(
        `ingress: delivery ${deliveryId(headers)} to channel '${channel}' not stored: ${err.message}; answered 503 with Retry-After: 5 (the service sends it again)`,
        {
          level: 'error',
          channel,
          status: 503,
        },
      );
      sendError(res, 503, err.message, undefined, { 'retry-after': '5' });
    });
    if (stored) accepted(res, stored.seq, verification);
  };

  /** 401 after journaling what the doctor needs (../base/rejected.ts), or 429 and nothing journaled past the rate. */
  async function rejected(
    req: IncomingMessage,
    res: ServerResponse,
    channel: { channel: string; gen?: string },
    headers: [string, string][],
    body: Buffer,
    reason: string,
  ) {
    const source = clientAddress(req, ctx.trustProxy);
    if (!ctx.rejectLimiter.take(source)) {
      refused(req, 'rate-limit', channel.channel, source);
      const retry = String(ctx.rejectLimiter.retryAfter(source));
      return sendError(res, 429, `too many deliveries that failed verification from this address; retry after ${retry} s`, undefined, { 'retry-after': retry });
    }
    const { stored, received } = keepOfRejected(body);
    await ctx.store.add({ ...channel, verification: 'rejected', reason, headers, targets: [], ...(received ? { received } : {}) }, stored);
    refused(req, 'signature', channel.channel, source);
    sendError(res, 401, reason);
  }
}

/**
 * Why a request is a browser's cross-site one (an Origin header, Sec-Fetch-Site cross-site or
 * same-site), or undefined. The service never sends these; a web page that makes a visitor's
 * browser post to the relay does, and must not reach the app behind it.
 */
function fromBrowser(req: IncomingMessage): string | undefined {
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return `a browser's ${site} request is refused (Sec-Fetch-Site); the service never sends one`;
  if (req.headers.origin !== undefined) return "a browser's request (with an Origin header) is refused; the service never sends one";
  return undefined;
}

function check(body: Buffer, signature: string | undefined, secrets: string[]): { verification: Verification; reason?: string } {
  if (secrets.length === 0) return { verification: 'unverified' };
  const v = verify(body, signature, secrets);
  return v.ok ? { verification: 'verified' } : { verification: 'rejected', reason: describeVerifyFailure(v.reason) };
}

const DELIVERY_NAME = DELIVERY_HEADER.toLowerCase();

/** The service's id of a delivery (X-Service-Delivery) as a log may show it: its safe characters, at most 64. */
function deliveryId(headers: [string, string][]): string {
  const id = headers.find(([k]) => k.toLowerCase() === DELIVERY_NAME)?.[1];
  return id === undefined ? '(no X-Service-Delivery)' : id.replace(/[^\w.:-]/g, '?').slice(0, 64);
}

/** The same bytes as sendJson(res, 200, { seq, verification }), without building an object and a header record. */
function accepted(res: ServerResponse, seq: number, verification: Verification): void {
  const text = `{"seq":${seq},"verification":"${verification}"}`;
  res.writeHead(200, ['content-type', 'application/json', 'content-length', String(text.length)]);
  res.end(text);
}

const SIGNATURE_NAME = SIGNATURE_HEADER.toLowerCase();

/**
 * The raw header pairs in arrival order, and in the same pass the signature header (duplicates
 * joined with ', ' as node does for req.headers, so a repeated header stays malformed).
 */
function pairs(raw: string[]): { headers: [string, string][]; signature: string | undefined } {
  const headers: [string, string][] = [];
  let signature: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const k = raw[i]!;
    const v = raw[i + 1]!;
    headers.push([k, v]);
    if (k.length === SIGNATURE_NAME.length && k.toLowerCase() === SIGNATURE_NAME) signature = signature === undefined ? v : `${signature}, ${v}`;
  }
  return { headers, signature };
}
