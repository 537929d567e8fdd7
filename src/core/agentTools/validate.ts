// Checks a tool's input against its JSON schema (the subset definitions.ts uses), then the rules a
// schema cannot say (exactly one of two targets). Bad input is a value with a sentence that says
// what to give instead; it never throws.
import { CHANNEL_NAME_RE, CHANNEL_NAME_RULE } from '../relay/channelName';
import type { JsonSchema, ToolDefinition } from './definitions';

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

function checkValue(schema: JsonSchema, value: unknown, at: string): string | undefined {
  switch (schema.type) {
    case 'string': {
      if (typeof value !== 'string') return `${at} must be a string`;
      if (schema.minLength !== undefined && value.length < schema.minLength) return `${at} must not be empty`;
      if (schema.maxLength !== undefined && value.length > schema.maxLength) return `${at} is longer than ${schema.maxLength} characters`;
      if (schema.enum && !schema.enum.includes(value)) return `${at} must be one of ${schema.enum.join(', ')}`;
      if (schema.pattern && !new RegExp(schema.pattern, 'u').test(value)) return `${at} has the wrong form (${schema.description ?? schema.pattern})`;
      return undefined;
    }
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) return `${at} must be an integer`;
      if (schema.minimum !== undefined && value < schema.minimum) return `${at} must be at least ${schema.minimum}`;
      if (schema.maximum !== undefined && value > schema.maximum) return `${at} must be at most ${schema.maximum}`;
      return undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `${at} must be true or false`;
    case 'array':
      if (!Array.isArray(value)) return `${at} must be an array`;
      for (const [i, v] of value.entries()) {
        const e = schema.items && checkValue(schema.items, v, `${at}[${i}]`);
        if (e) return e;
      }
      return undefined;
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${at} must be an object`;
      const props = schema.properties ?? {};
      for (const key of schema.required ?? []) if ((value as Record<string, unknown>)[key] === undefined) return `${key} is required`;
      for (const [key, v] of Object.entries(value)) {
        const p = props[key];
        if (!p) {
          if (schema.additionalProperties === false) return `unknown input ${JSON.stringify(key)}; known: ${Object.keys(props).join(', ') || 'none'}`;
          continue;
        }
        const e = v === undefined ? undefined : checkValue(p, v, key);
        if (e) return e;
      }
      return undefined;
    }
  }
}

/** The input checked against the tool's schema and its cross-field rules. */
export function validateInput(tool: ToolDefinition, input: unknown): Checked<Record<string, unknown>> {
  const error = checkValue(tool.inputSchema, input ?? {}, 'input');
  if (error) return { ok: false, error: `Invalid input for ${tool.name}: ${error}.` };
  const value = { ...((input ?? {}) as Record<string, unknown>) };
  const rule = crossFieldProblem(tool.name, value);
  return rule ? { ok: false, error: `Invalid input for ${tool.name}: ${rule}.` } : { ok: true, value };
}

function crossFieldProblem(name: string, v: Record<string, unknown>): string | undefined {
  if (typeof v.channel === 'string' && !CHANNEL_NAME_RE.test(v.channel)) return `channel must be ${CHANNEL_NAME_RULE}`;
  const has = (k: string) => v[k] !== undefined;
  switch (name) {
    case 'serviceHooks_listDeliveries':
    case 'serviceHooks_sendSampleEvent':
      if (has('webhookId') === has('channel')) return 'give either webhookId or channel (one of them)';
      return undefined;
    case 'serviceHooks_getDelivery':
    case 'serviceHooks_explainSignature':
      if (has('seq') && (has('webhookId') || has('deliveryId'))) return 'give either seq, or webhookId and deliveryId (not both)';
      if (!has('seq') && !(has('webhookId') && has('deliveryId'))) return 'give seq (a relay delivery), or webhookId and deliveryId (a service delivery)';
      return undefined;
    case 'serviceHooks_lintWorkflow':
    case 'serviceHooks_applyPortFixes':
      if (/(^|[\\/])\.\.([\\/]|$)/.test(String(v.path))) return 'path must stay inside the workspace (no "..")';
      return undefined;
    default:
      return undefined;
  }
}
