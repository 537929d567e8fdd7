// The webhook tools for chat agents: names, descriptions and input schemas. One declaration for the
// editor's language-model tools (package.json `contributes.languageModelTools`, checked against this
// by test/unit/core/agentTools/manifest.test.ts) and for `service-hooks mcp`.
import { EVENT_TYPES } from '../events/types';

export type JsonSchema = {
  type: 'object' | 'string' | 'integer' | 'boolean' | 'array';
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: false;
  items?: JsonSchema;
  enum?: readonly string[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
};

export interface ToolDefinition {
  name: ToolName;
  /** Short title (VS Code's displayName, MCP's title). */
  title: string;
  /** What the model reads to decide when to call it. */
  description: string;
  /** Changes something (sends, retries, writes): asks first in the editor; off in MCP without --allow-actions. */
  acting: boolean;
  inputSchema: JsonSchema & { type: 'object' };
}

export const TOOL_NAMES = [
  'serviceHooks_listWebhooks',
  'serviceHooks_listDeliveries',
  'serviceHooks_getDelivery',
  'serviceHooks_explainSignature',
  'serviceHooks_lintWorkflow',
  'serviceHooks_pingWebhook',
  'serviceHooks_retryDelivery',
  'serviceHooks_replayDelivery',
  'serviceHooks_sendSampleEvent',
  'serviceHooks_applyPortFixes',
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

const REPO = {
  type: 'string',
  pattern: '^[^/\\s]+/[^/\\s]+$',
  maxLength: 200,
  description: 'owner/repo; default: the first repository of the workspace',
} as const;
const WEBHOOK_ID = { type: 'string', minLength: 1, maxLength: 200, description: 'the webhook id (from serviceHooks_listWebhooks)' } as const;
const DELIVERY_ID = { type: 'string', minLength: 1, maxLength: 200, description: 'the delivery id (from serviceHooks_listDeliveries)' } as const;
const SEQ = { type: 'integer', minimum: 1, description: "a relay delivery's sequence number (from serviceHooks_listDeliveries with a channel)" } as const;
const CHANNEL = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$', description: 'a relay channel name, e.g. default' } as const;
const PATH = {
  type: 'string',
  minLength: 1,
  maxLength: 1000,
  description: 'a workflow file: a path relative to the workspace (or the working folder), e.g. .github/workflows/ci.yml',
} as const;

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'serviceHooks_listWebhooks',
    title: 'List webhooks',
    description:
      "Lists the webhooks of a repository on the service: id, payload URL, events, and each one's last delivery (event, HTTP status, time). Start here to find a webhook id.",
    acting: false,
    inputSchema: { type: 'object', properties: { repo: REPO }, additionalProperties: false },
  },
  {
    name: 'serviceHooks_listDeliveries',
    title: 'List recent deliveries',
    description:
      "Lists the recent deliveries of a webhook (give webhookId) or of a relay channel (give channel): delivery id or seq, event, time, the app's answer (HTTP status or error). Failed ones are marked FAILED.",
    acting: false,
    inputSchema: {
      type: 'object',
      properties: {
        webhookId: WEBHOOK_ID,
        channel: CHANNEL,
        limit: { type: 'integer', minimum: 1, maximum: 50, description: 'at most this many (default 10)' },
      },
      additionalProperties: false,
    },
  },
  {
    name: 'serviceHooks_getDelivery',
    title: 'Get a delivery',
    description:
      'One delivery in full: its request headers (signatures, tokens and secrets redacted), its body (cut at 8 KiB), and every attempt with the answer. Give webhookId and deliveryId (the service), or seq (the relay journal).',
    acting: false,
    inputSchema: { type: 'object', properties: { webhookId: WEBHOOK_ID, deliveryId: DELIVERY_ID, seq: SEQ }, additionalProperties: false },
  },
  {
    name: 'serviceHooks_explainSignature',
    title: 'Explain a signature failure',
    description:
      "Why a delivery's X-Service-Signature does or does not match: the signature doctor's findings (a changed body, a trailing newline, re-serialized JSON, the wrong secret). Give seq (a relay delivery: the relay's verdict) or webhookId and deliveryId (checked with the secret the editor holds for that URL). Never takes or returns a secret.",
    acting: false,
    inputSchema: { type: 'object', properties: { webhookId: WEBHOOK_ID, deliveryId: DELIVERY_ID, seq: SEQ }, additionalProperties: false },
  },
  {
    name: 'serviceHooks_lintWorkflow',
    title: 'Lint a workflow for porting',
    description:
      'Runs the workflow port linter on a workflow file: each finding (line:column, rule, message, the fix if any), and the full text the fixes would produce. Changes nothing; serviceHooks_applyPortFixes writes it.',
    acting: false,
    inputSchema: { type: 'object', properties: { path: PATH }, required: ['path'], additionalProperties: false },
  },
  {
    name: 'serviceHooks_pingWebhook',
    title: 'Ping a webhook',
    description: 'Has the service send a ping delivery to a webhook now; returns the delivery and the answer of its URL.',
    acting: true,
    inputSchema: { type: 'object', properties: { webhookId: WEBHOOK_ID }, required: ['webhookId'], additionalProperties: false },
  },
  {
    name: 'serviceHooks_retryDelivery',
    title: 'Retry a delivery',
    description: 'Has the service send a delivery of a webhook again (a redelivery); returns the new attempt and its answer.',
    acting: true,
    inputSchema: {
      type: 'object',
      properties: { webhookId: WEBHOOK_ID, deliveryId: DELIVERY_ID },
      required: ['webhookId', 'deliveryId'],
      additionalProperties: false,
    },
  },
  {
    name: 'serviceHooks_replayDelivery',
    title: 'Replay a relay delivery',
    description:
      'Sends a delivery from the relay journal again, byte-exact, to the app its channel forwards to (never to another address); returns each attempt and its answer.',
    acting: true,
    inputSchema: { type: 'object', properties: { seq: SEQ }, required: ['seq'], additionalProperties: false },
  },
  {
    name: 'serviceHooks_sendSampleEvent',
    title: 'Send a sample event',
    description:
      "Posts a typed sample delivery of an event to a webhook's URL (give webhookId) or a relay channel (give channel), signed with the secret held for it (unsigned when none is held), marked as a test send; returns the answer.",
    acting: true,
    inputSchema: {
      type: 'object',
      properties: { webhookId: WEBHOOK_ID, channel: CHANNEL, event: { type: 'string', enum: EVENT_TYPES, description: 'the event type' } },
      required: ['event'],
      additionalProperties: false,
    },
  },
  {
    name: 'serviceHooks_applyPortFixes',
    title: 'Apply a port',
    description:
      "Writes the port linter's fixes into a workflow file (GITHUB_TOKEN to SERVICE_TOKEN, github.* to service.*, …), changing nothing else; returns what it renamed and what still needs a decision.",
    acting: true,
    inputSchema: { type: 'object', properties: { path: PATH }, required: ['path'], additionalProperties: false },
  },
];

export function toolDefinition(name: string): ToolDefinition | undefined {
  return TOOLS.find((t) => t.name === name);
}
