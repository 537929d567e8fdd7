// REST client of the relay API (token in the Authorization header, never the URL).
import { request, type Dispatcher } from 'undici';
import { REPLAY_TO_SUBSCRIBERS } from '../../src/core/relay/protocol';
import { restPath } from '../../src/core/relay/restPaths';
import type {
  ChannelInfo,
  ChannelList,
  CreateChannelRequest,
  CreatedChannel,
  UpdateChannelSecrets,
  DeliveryList,
  DeliveryListQuery,
  PruneRequest,
  PruneResponse,
  RelayDelivery,
  RelayStatus,
  ReplayRequest,
  ReplayResponse,
  RetryPendingRequest,
  RetryPendingResponse,
  SubscriberReplayResponse,
} from '../../src/core/relay/protocol';
import { RelayApiError } from './apiError';

export { RelayApiError } from './apiError';

export interface RelayApiOptions {
  /** e.g. http://127.0.0.1:8788 */
  baseUrl: string;
  token: string;
  dispatcher?: Dispatcher;
  timeoutMs?: number;
}

export class RelayApi {
  private readonly base: string;
  constructor(private readonly options: RelayApiOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
  }

  private async call<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown, auth = true): Promise<T> {
    const timeout = this.options.timeoutMs ?? 30_000;
    const res = await request(this.base + path, {
      method,
      headers: {
        ...(auth ? { authorization: `Bearer ${this.options.token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher: this.options.dispatcher,
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode >= 300) {
      let reason = text.slice(0, 200);
      try {
        reason = (JSON.parse(text) as { error?: string }).error ?? reason;
      } catch {
        // not JSON
      }
      throw new RelayApiError(res.statusCode, `relay ${method} ${path.split('?')[0]}: ${res.statusCode} ${reason}`);
    }
    if (!text) return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new RelayApiError(
        res.statusCode,
        `relay ${method} ${path.split('?')[0]}: ${res.statusCode} with a body that is not JSON; is ${this.base} a relay?`,
      );
    }
  }

  /** GET /healthz: liveness only (no seq: it needs no token). */
  health(): Promise<{ ok: boolean; warning?: string }> {
    return this.call('GET', restPath('health'), undefined, false);
  }

  status(): Promise<RelayStatus> {
    return this.call('GET', restPath('status'));
  }

  listDeliveries(query: DeliveryListQuery = {}): Promise<DeliveryList> {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') q.set(k, String(v));
    const s = q.toString();
    return this.call('GET', `${restPath('deliveries')}${s ? `?${s}` : ''}`);
  }

  getDelivery(seq: number): Promise<RelayDelivery> {
    return this.call('GET', restPath('delivery', { seq }));
  }

  replay(seq: number, options: ReplayRequest = {}): Promise<ReplayResponse> {
    return this.call('POST', restPath('replay', { seq }), options);
  }

  /**
   * Sends delivery `seq` again to the subscribers connected to its channel (`service-hooks
   * forward`, the editor), which forward it to their app again and report the result. Resolves to
   * how many it went to; 409 (RelayApiError) when none is connected.
   */
  replayToSubscribers(seq: number): Promise<SubscriberReplayResponse> {
    return this.call('POST', restPath('replay', { seq }), { to: REPLAY_TO_SUBSCRIBERS } satisfies ReplayRequest);
  }

  /**
   * "Retry pending now": the relay queues at once, in seq order, every pending forward waiting for
   * its next scheduled attempt (of one channel and/or to one target when given). Resolves to how
   * many were queued; the attempts then run in the background (watch them on the WebSocket).
   */
  retryPending(filter: RetryPendingRequest = {}): Promise<RetryPendingResponse> {
    return this.call('POST', restPath('retryPending'), filter);
  }

  prune(options: PruneRequest): Promise<PruneResponse> {
    return this.call('POST', restPath('prune'), options);
  }

  /** Admin token only. The answer holds the channel's token, shown this once. */
  createChannel(request: CreateChannelRequest): Promise<CreatedChannel> {
    return this.call('POST', restPath('channels'), request);
  }

  /** Admin token only. */
  async listChannels(): Promise<ChannelInfo[]> {
    return (await this.call<ChannelList>('GET', restPath('channels'))).channels;
  }

  /** The admin token, or the channel's own token. */
  getChannel(name: string): Promise<ChannelInfo> {
    return this.call('GET', restPath('channel', { name }));
  }

  /**
   * Admin token only. Changes a channel's signing secrets, keeping its token: `{ addSecrets }` adds
   * (rotation starts: both verify), `{ secrets }` replaces (rotation ends: only the new one).
   */
  updateChannelSecrets(name: string, change: UpdateChannelSecrets): Promise<ChannelInfo & { warning?: string }> {
    return this.call('PATCH', restPath('channel', { name }), change);
  }

  /** Admin token only. The channel's token stops working and its ingress answers 404. */
  async deleteChannel(name: string): Promise<void> {
    await this.call('DELETE', restPath('channel', { name }));
  }
}
