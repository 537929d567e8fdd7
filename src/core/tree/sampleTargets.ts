// Send Sample Event…'s first pick: the listed webhooks, then the relay channels no webhook points
// at. Two webhooks on one channel share a URL, so each row also names the webhook's events (and
// its id when even those are the same): no two rows read alike.
import { eventsDescription, webhookLabel } from './labels';
import { repoKey, type RepoRef, type WebhookView } from './types';

export interface SampleTarget {
  url: string;
  label: string;
  repo?: RepoRef;
  /** a webhook's events: offered first */
  events?: readonly string[];
}

export interface SampleTargetItem {
  label: string;
  description: string;
  target: SampleTarget;
}

export function sampleTargetItems(
  hooks: readonly { repo: RepoRef; webhook: Pick<WebhookView, 'id' | 'url' | 'events'> }[],
  channels: readonly { url: string; description: string }[],
): SampleTargetItem[] {
  const rows = hooks.map(({ repo, webhook }) => ({
    label: webhookLabel(webhook.url),
    description: `webhook of ${repoKey(repo)} · ${eventsDescription(webhook.events)}`,
    target: { url: webhook.url, label: webhookLabel(webhook.url), repo, events: webhook.events },
    id: webhook.id,
  }));
  const seen = new Map<string, number>();
  for (const r of rows) seen.set(`${r.label}\n${r.description}`, (seen.get(`${r.label}\n${r.description}`) ?? 0) + 1);
  const hookItems = rows.map(({ id, ...r }) =>
    (seen.get(`${r.label}\n${r.description}`) ?? 0) > 1 ? { ...r, description: `${r.description} · webhook ${id}` } : r,
  );
  const channelItems = channels
    .filter((c) => !hooks.some((h) => h.webhook.url === c.url))
    .map((c) => ({ label: c.url, description: `relay channel · ${c.description}`, target: { url: c.url, label: c.url } }));
  return [...hookItems, ...channelItems];
}
