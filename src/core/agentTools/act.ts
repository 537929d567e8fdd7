// The acting tools: ping, retry, replay, send a sample, apply a port. Each has a confirmation that
// says exactly what will happen (confirmation()), and returns what happened.
import { randomUUID } from 'node:crypto';
import { ServiceError } from '../client/errors';
import { isEventType } from '../events';
import { sampleRequest } from '../events/sampleRequest';
import { applyFixesChecked, lintText } from '../lint';
import type { ToolBackend, ToolOutcome } from './backend';
import { findingLine, relayAttemptLine, serviceAttemptLine, serviceOutcome } from './format';
import { repoOf, webhookUrl } from './read';

type Input = Record<string, unknown>;

export async function ping(backend: ToolBackend, input: Input): Promise<ToolOutcome> {
  const id = String(input.webhookId);
  const d = await (await backend.service()).ping(id);
  if (!d) return { ok: true, text: `Ping sent to webhook ${id}; the service did not say how it went (list its deliveries to see).` };
  return {
    ok: d.success,
    text: [`Pinged webhook ${id}: delivery ${d.id} ${serviceOutcome(d)}.`, 'Attempts:', ...d.attempts.map(serviceAttemptLine)].join('\n'),
  };
}

export async function retry(backend: ToolBackend, input: Input): Promise<ToolOutcome> {
  const [webhookId, deliveryId] = [String(input.webhookId), String(input.deliveryId)];
  const service = await backend.service();
  let d;
  try {
    d = await service.retryDelivery(webhookId, deliveryId);
  } catch (err) {
    // The service's 409: it delivered this one (to the relay), so it will not send it again. A
    // delivery the relay took and the app refused is sent again from the relay (as the tree's Retry does).
    if (err instanceof ServiceError && err.status === 409)
      return {
        ok: false,
        text: `The service delivered ${deliveryId} of webhook ${webhookId} already (its retry answers 409), so it will not send it again. If the relay took it and your app refused it, replay it from the relay: list the relay's deliveries to find its seq, then serviceHooks_replayDelivery.`,
      };
    throw err;
  }
  if (!d) return { ok: true, text: `Asked the service to send delivery ${deliveryId} of webhook ${webhookId} again; list its deliveries to see the outcome.` };
  return {
    ok: d.success,
    text: [`Retried delivery ${deliveryId} of webhook ${webhookId}: ${serviceOutcome(d)}.`, 'Attempts:', ...d.attempts.map(serviceAttemptLine)].join('\n'),
  };
}

export async function replay(backend: ToolBackend, input: Input): Promise<ToolOutcome> {
  const seq = Number(input.seq);
  const { to, attempts } = await (await backend.relay()).replay(seq);
  const last = attempts[attempts.length - 1];
  const where = to ?? last?.target;
  const status = last ? (last.status !== undefined ? `HTTP ${last.status}` : (last.error ?? 'no answer')) : 'no attempt (the channel forwards nowhere)';
  return {
    ok: last?.ok ?? false,
    text: [`Replayed #${seq}${where ? ` to ${where}` : ''}: ${status}.`, ...(attempts.length ? ['Attempts:', ...attempts.map(relayAttemptLine)] : [])].join(
      '\n',
    ),
  };
}

async function sampleTarget(backend: ToolBackend, input: Input): Promise<{ url: string; label: string } | string> {
  if (typeof input.channel === 'string') {
    const relay = await backend.relay();
    return { url: relay.ingressUrl(input.channel), label: `channel ${input.channel} of ${relay.label}` };
  }
  const url = await webhookUrl(backend, String(input.webhookId));
  return url
    ? { url, label: `webhook ${String(input.webhookId)} (${url})` }
    : `No webhook ${String(input.webhookId)} in the workspace's repositories: list them with serviceHooks_listWebhooks.`;
}

export async function sendSample(backend: ToolBackend, input: Input): Promise<ToolOutcome> {
  const event = input.event;
  if (!isEventType(event)) return { ok: false, text: `Unknown event ${JSON.stringify(event)}.` };
  const target = await sampleTarget(backend, input);
  if (typeof target === 'string') return { ok: false, text: target };
  const secret = await backend.secretFor(target.url);
  const repo = await repoOf(backend, undefined);
  const req = sampleRequest(event, randomUUID(), secret, repo ? { owner: repo.owner, repo: repo.repo } : {});
  const status = await backend.post(target.url, req.headers, req.body);
  const good = status >= 200 && status < 300;
  return {
    ok: good,
    text: `Sent a sample ${event} to ${target.label}, ${secret ? 'signed with the secret held for it' : 'UNSIGNED (no secret held for it)'}: it answered HTTP ${status}${good ? '' : ' (FAILED)'}. Marked as a test send, delivery id ${req.deliveryId}.`,
  };
}

export async function applyPort(backend: ToolBackend, input: Input): Promise<ToolOutcome> {
  const path = String(input.path);
  const { name, text } = await backend.readWorkflow(path);
  const findings = lintText(text, { rules: await backend.lintRules(path) });
  const fixed = applyFixesChecked(text, findings);
  const applied = findings.filter((f) => f.replacement !== undefined && !fixed.refused.includes(f));
  const left = findings.filter((f) => !applied.includes(f));
  if (fixed.text !== text) await backend.writeWorkflow(path, fixed.text);
  return {
    ok: true,
    text: [
      fixed.text === text ? `${name}: no fix to apply; the file is unchanged.` : `${name}: wrote ${applied.length} fix(es):`,
      ...applied.map(findingLine),
      ...(left.length ? [`${left.length} finding(s) left, needing a decision:`, ...left.map(findingLine)] : []),
    ].join('\n'),
  };
}

/** The confirmation an acting tool shows before it runs: exactly what will happen. */
export async function confirmation(backend: ToolBackend, name: string, input: Input): Promise<{ title: string; message: string } | undefined> {
  const lookUp = async (id: string) => (await webhookUrl(backend, id).catch(() => undefined)) ?? 'its payload URL';
  switch (name) {
    case 'serviceHooks_pingWebhook':
      return {
        title: 'Ping the webhook?',
        message: `The service sends a ping delivery to webhook ${String(input.webhookId)} at ${await lookUp(String(input.webhookId))} now.`,
      };
    case 'serviceHooks_retryDelivery':
      return {
        title: 'Retry the delivery?',
        message: `The service sends delivery ${String(input.deliveryId)} of webhook ${String(input.webhookId)} again to ${await lookUp(String(input.webhookId))}, as a redelivery.`,
      };
    case 'serviceHooks_replayDelivery':
      return {
        title: 'Replay the delivery?',
        message: `The relay sends delivery #${String(input.seq)} from its journal again, byte-exact, to the app its channel forwards to.`,
      };
    case 'serviceHooks_sendSampleEvent': {
      const target = await sampleTarget(backend, input).catch(() => undefined);
      const where =
        target && typeof target !== 'string' ? target.label : input.channel ? `channel ${String(input.channel)}` : `webhook ${String(input.webhookId)}`;
      return {
        title: 'Send a sample event?',
        message: `A sample ${String(input.event)} delivery is posted to ${where}, signed with the secret held for it if any, marked as a test send.`,
      };
    }
    case 'serviceHooks_applyPortFixes':
      return {
        title: 'Apply the port fixes?',
        message: `The port linter's automatic fixes are written into ${String(input.path)}; nothing else in the file changes.`,
      };
    default:
      return undefined;
  }
}
