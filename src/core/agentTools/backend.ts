// What the tools need from their host: the editor (src/extension/agentTools: the same service
// client, relay connection and held secrets as the tree and the commands) or `service-hooks mcp`
// (relay/commands/mcp.ts: a service client and a relay API from the CLI's env vars and token files).
import type { DeliveryDetail, DeliveryListing, DeliveryRecord, RepoRef, Webhook } from '../client/types';
import type { ExtraRule } from '../lint/types';
import type { DeliveryList, DeliveryListQuery, ForwardAttempt, RelayDelivery } from '../relay/protocol';

export interface ServiceSide {
  listWebhooks(repo: RepoRef): Promise<Webhook[]>;
  listDeliveries(webhookId: string, page?: { limit?: number; offset?: number }): Promise<DeliveryListing>;
  getDelivery(webhookId: string, deliveryId: string): Promise<DeliveryDetail | undefined>;
  ping(id: string): Promise<DeliveryRecord | undefined>;
  retryDelivery(webhookId: string, deliveryId: string): Promise<DeliveryRecord | undefined>;
}

export interface RelaySide {
  /** e.g. "the local relay on port 8788", "relay.example.com" */
  label: string;
  listDeliveries(query: DeliveryListQuery): Promise<DeliveryList>;
  getDelivery(seq: number): Promise<RelayDelivery>;
  /** Replays to the app the channel forwards to (never a given address): `to` is where it went. */
  replay(seq: number): Promise<{ to?: string; attempts: ForwardAttempt[] }>;
  /** The URL the service posts a channel's deliveries to. */
  ingressUrl(channel: string): string;
}

export interface ToolBackend {
  /** Throws when not signed in (describeError says what to do). */
  service(): Promise<ServiceSide>;
  /** Throws when no relay is in use. */
  relay(): Promise<RelaySide>;
  repositories(): Promise<RepoRef[]>;
  /** The signing secret held for a URL (the local relay's, a set-up channel's); used, never shown. */
  secretFor(url: string): Promise<string | undefined>;
  /** POSTs a request as the service would; resolves with the HTTP status. */
  post(url: string, headers: Record<string, string>, body: Uint8Array): Promise<number>;
  /** A workflow file by the path the model gave (relative to the workspace or the working folder). */
  readWorkflow(path: string): Promise<{ name: string; text: string }>;
  writeWorkflow(path: string, text: string): Promise<void>;
  /** The extra rename rules of .service-hooks.json for that file. */
  lintRules(path: string): Promise<ExtraRule[]>;
  /** Tokens and secrets the host holds: scrubbed from every result, whatever produced it. */
  knownSecrets(): Promise<string[]>;
  /** An error as a sentence that says what to do next (sign in, start a relay, …). */
  describeError(err: unknown): string;
}

/** What a tool gives back: short structured text for a model; ok false for a failure it can act on. */
export interface ToolOutcome {
  ok: boolean;
  text: string;
}
