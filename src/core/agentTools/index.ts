// The webhook tools for chat agents, shared by the editor (vscode.lm) and `service-hooks mcp`:
// definitions (schemas), input checks, the tools' logic over a ToolBackend, and result text with
// every secret scrubbed. Pure: the hosts pass their I/O in.
import { applyPort, confirmation, ping, replay, retry, sendSample } from './act';
import type { ToolBackend, ToolOutcome } from './backend';
import { toolDefinition, type ToolName } from './definitions';
import { scrub } from './format';
import { explain, getDelivery, lintWorkflow, listDeliveries, listWebhooks } from './read';
import { validateInput } from './validate';

export * from './definitions';
export type { RelaySide, ServiceSide, ToolBackend, ToolOutcome } from './backend';
export { validateInput } from './validate';
export { describeToolError, ToolSetupError, type ErrorHints } from './errors';

const RUN: Record<ToolName, (b: ToolBackend, input: Record<string, unknown>) => Promise<ToolOutcome>> = {
  serviceHooks_listWebhooks: listWebhooks,
  serviceHooks_listDeliveries: listDeliveries,
  serviceHooks_getDelivery: getDelivery,
  serviceHooks_explainSignature: explain,
  serviceHooks_lintWorkflow: lintWorkflow,
  serviceHooks_pingWebhook: ping,
  serviceHooks_retryDelivery: retry,
  serviceHooks_replayDelivery: replay,
  serviceHooks_sendSampleEvent: sendSample,
  serviceHooks_applyPortFixes: applyPort,
};

/** Runs a tool: input checked again in code, errors as sentences that say what to do, every known secret scrubbed. */
export async function runTool(backend: ToolBackend, name: string, input: unknown): Promise<ToolOutcome> {
  const tool = toolDefinition(name);
  let outcome: ToolOutcome;
  if (!tool) outcome = { ok: false, text: `Unknown tool ${JSON.stringify(name)}.` };
  else {
    const checked = validateInput(tool, input);
    if (!checked.ok) outcome = { ok: false, text: checked.error };
    else {
      try {
        outcome = await RUN[tool.name](backend, checked.value);
      } catch (err) {
        outcome = { ok: false, text: backend.describeError(err) };
      }
    }
  }
  const secrets = await backend.knownSecrets().catch(() => []);
  return { ok: outcome.ok, text: scrub(outcome.text, secrets) };
}

/** An acting tool's confirmation (title and message), scrubbed; undefined for a reading tool or bad input. */
export async function toolConfirmation(backend: ToolBackend, name: string, input: unknown): Promise<{ title: string; message: string } | undefined> {
  const tool = toolDefinition(name);
  if (!tool?.acting || !validateInput(tool, input).ok) return undefined;
  const c = await confirmation(backend, name, (input ?? {}) as Record<string, unknown>);
  if (!c) return undefined;
  const secrets = await backend.knownSecrets().catch(() => []);
  return { title: c.title, message: scrub(c.message, secrets) };
}
