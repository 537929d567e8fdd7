// The reading tools: webhooks, deliveries, one delivery, a signature's explanation, a workflow's lint.
import { explainSignature } from '../doctor';
import type { DeliveryRecord, RepoRef } from '../client/types';
import { applyFixesChecked, lintText } from '../lint';
import { SIGNATURE_HEADER } from '../signing';
import type { ToolBackend, ToolOutcome } from './backend';
import { bodyText, findingLine, headerLines, relayAttemptLine, relayDeliveryLine, serviceAttemptLine, serviceDeliveryLine, webhookLine } from './format';

type Input = Record<string, unknown>;
const ok = (text: string): ToolOutcome => ({ ok: true, text });
const fail = (text: string): ToolOutcome => ({ ok: false, text });

export async function repoOf(backend: ToolBackend, given: unknown): Promise<RepoRef | undefined> {
  if (typeof given === 'string') {
    const [owner, repo] = given.split('/') as [string, string];
    return { owner, repo };
  }
  return (await backend.repositories())[0];
}

export async function listWebhooks(backend: ToolBackend, input: Input): Promise<ToolOutcome> {
  const repo = await repoOf(backend, input.repo);
  if (!repo) return fail('No repository: pass repo as owner/repo (the workspace has no git remote on the service).');
  const service = await backend.service();
  const hooks = await service.listWebhooks(repo);
  if (hooks.length === 0) return ok(`${repo.owner}/${repo.repo} has no webhooks.`);
  const lines = await Promise.all(
    hooks.map(async (w) => {
      const listing = await service.listDeliveries(w.id, { limit: 1 }).catch(() => undefined);
      const last: DeliveryRecord | undefined | 'not offered' = listing ? (listing.offered ? listing.deliveries[0] : 'not offered') : undefined;
      return webhookLine(w, last);
    }),
  );
  return ok([`${hooks.length} webhook(s) of ${repo.owner}/${repo.repo}:`, ...lines].join('\n'));
}

export async function listDeliveries(backend: ToolBackend, input: Input): Promise<ToolOutcome> {
  const limit = typeof input.limit === 'number' ? input.limit : 10;
  if (typeof input.channel === 'string') {
    const relay = await backend.relay();
    const { deliveries } = await relay.listDeliveries({ channel: input.channel, limit });
    if (deliveries.length === 0) return ok(`Channel ${input.channel} on ${relay.label} has no deliveries yet.`);
    return ok([`${deliveries.length} most recent deliveries of channel ${input.channel} on ${relay.label}:`, ...deliveries.map(relayDeliveryLine)].join('\n'));
  }
  const webhookId = String(input.webhookId);
  const listing = await (await backend.service()).listDeliveries(webhookId, { limit });
  if (!listing.offered)
    return fail(
      `The service does not list deliveries (${listing.reason}). Call serviceHooks_listDeliveries with the relay channel the webhook's URL posts to (its last path segment after /hooks/).`,
    );
  if (listing.deliveries.length === 0) return ok(`Webhook ${webhookId} has no deliveries yet.`);
  return ok(
    [
      `Webhook ${webhookId}: ${listing.total} deliveries (${listing.successful} OK, ${listing.failed} failed); the ${listing.deliveries.length} most recent:`,
      ...listing.deliveries.map(serviceDeliveryLine),
    ].join('\n'),
  );
}

export async function getDelivery(backend: ToolBackend, input: Input): Promise<ToolOutcome> {
  if (typeof input.seq === 'number') {
    const d = await (await backend.relay()).getDelivery(input.seq);
    const body = Buffer.from(d.bodyBase64, 'base64');
    return ok(
      [
        relayDeliveryLine(d).slice(2),
        ...(d.explanation?.length ? ['Signature findings:', ...d.explanation.map((x) => `- ${x}`)] : []),
        'Headers:',
        ...headerLines(d.headers),
        `Body (${d.size} bytes${d.truncated ? `, only the first ${d.truncated.kept} kept` : ''}):`,
        bodyText(body),
        'Forward attempts:',
        ...(d.attempts.length ? d.attempts.map(relayAttemptLine) : ['- none']),
      ].join('\n'),
    );
  }
  const detail = await (await backend.service()).getDelivery(String(input.webhookId), String(input.deliveryId));
  if (!detail)
    return fail(
      'The service does not offer delivery details. Use the relay: serviceHooks_listDeliveries with a channel, then serviceHooks_getDelivery with its seq.',
    );
  return ok(
    [
      serviceDeliveryLine(detail).slice(2),
      'Headers:',
      ...headerLines(detail.request.headers),
      'Body:',
      bodyText(Buffer.from(detail.request.body, 'utf8')),
      'Attempts:',
      ...(detail.attempts.length ? detail.attempts.map(serviceAttemptLine) : ['- none']),
    ].join('\n'),
  );
}

function header(headers: Record<string, string>, name: string): string | undefined {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : headers[key];
}

export async function explain(backend: ToolBackend, input: Input): Promise<ToolOutcome> {
  if (typeof input.seq === 'number') {
    const d = await (await backend.relay()).getDelivery(input.seq);
    if (d.verification === 'verified')
      return ok(`Delivery #${d.seq}: the relay checked ${SIGNATURE_HEADER} with the secret of channel ${d.channel} on arrival: it matches.`);
    if (d.verification === 'rejected')
      return ok(
        [
          `Delivery #${d.seq}: the relay REJECTED it: ${d.reason ?? "the signature did not match the channel's secret"}.`,
          'Findings:',
          ...(d.explanation?.length ? d.explanation.map((x) => `- ${x}`) : ['- none beyond the mismatch: the sender signs with another secret']),
          "Next: fix the webhook's secret (or the channel's), then retry the delivery on the service.",
        ].join('\n'),
      );
    return ok(`Delivery #${d.seq}: channel ${d.channel} has no secret on the relay, so the relay did not check its signature (unverified).`);
  }
  const webhookId = String(input.webhookId);
  const service = await backend.service();
  const detail = await service.getDelivery(webhookId, String(input.deliveryId));
  if (!detail) return fail("The service does not offer delivery details. Explain the relay's copy instead: serviceHooks_explainSignature with its seq.");
  const url = await webhookUrl(backend, webhookId);
  const secret = url ? await backend.secretFor(url) : undefined;
  if (!secret)
    return fail(
      'No secret is held for this webhook, and a tool never takes one. Ask the developer to run "Service Webhooks: Explain Signature" on the delivery in the editor (it asks for the secret), or explain the relay\'s copy by its seq.',
    );
  const result = explainSignature({
    body: Buffer.from(detail.request.body, 'utf8'),
    header: header(detail.request.headers, SIGNATURE_HEADER),
    secrets: [secret],
  });
  return ok(
    [
      `Delivery ${detail.id}: the signature ${result.ok ? 'MATCHES' : 'does NOT match'} the secret held for ${url}.`,
      'Findings:',
      ...result.findings.map((x) => `- ${x}`),
    ].join('\n'),
  );
}

export async function webhookUrl(backend: ToolBackend, webhookId: string): Promise<string | undefined> {
  const service = await backend.service();
  for (const repo of await backend.repositories()) {
    const hook = (await service.listWebhooks(repo)).find((w) => w.id === webhookId);
    if (hook) return hook.url;
  }
  return undefined;
}

export async function lintWorkflow(backend: ToolBackend, input: Input): Promise<ToolOutcome> {
  const path = String(input.path);
  const { name, text } = await backend.readWorkflow(path);
  const findings = lintText(text, { rules: await backend.lintRules(path) });
  if (findings.length === 0) return ok(`${name}: nothing to port.`);
  const fixed = applyFixesChecked(text, findings);
  const fixable = findings.filter((f) => f.replacement !== undefined && !fixed.refused.includes(f)).length;
  return ok(
    [
      `${name}: ${findings.length} finding(s), ${fixable} with an automatic fix:`,
      ...findings.map(findingLine),
      ...(fixed.text === text
        ? ['No fix changes the file.']
        : [`The text with the fixes applied (serviceHooks_applyPortFixes writes it):`, '```yaml', fixed.text, '```']),
    ].join('\n'),
  );
}
