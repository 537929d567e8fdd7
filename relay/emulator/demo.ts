// The demo data (`emulate --demo`): org acme, repo widgets, a webhook to the relay (every event,
// signed with DEMO_SECRET) and one to the emulator's always-failing endpoint, then one push.
import { DEFAULT_RELAY_URL, DEMO_SECRET } from '../../src/core/defaults';
import { ingressUrl } from '../../src/core/relay/ingressChannel';
import { EVENT_TYPES, samplePayload } from '../../src/core/events';
import type { DeliveryEngine } from './engine';
import type { EmulatorStore } from './store';

export const DEFAULT_DEMO_RELAY_URL = ingressUrl(DEFAULT_RELAY_URL);
export { DEMO_SECRET };

/** Seeds the demo when the state is empty (so only once per state file). */
export function seedDemo(store: EmulatorStore, engine: DeliveryEngine, o: { selfUrl: string; relayUrl: string; now: Date; log: (line: string) => void }): void {
  if (!store.isEmpty()) return;
  const repo = 'acme/widgets';
  store.addWebhook(repo, { url: o.relayUrl, events: [...EVENT_TYPES], secret: DEMO_SECRET }, o.now);
  store.addWebhook(repo, { url: `${o.selfUrl}/_emulator/fail/500`, events: ['push'] }, o.now);
  o.log(`demo: seeded ${repo} with a webhook to the relay and one to an endpoint that always fails`);
  const payload = samplePayload('push', { owner: 'acme', repo: 'widgets', baseUrl: o.selfUrl, now: o.now });
  for (const w of store.webhooksOf(repo)) engine.create(w, 'push', payload);
}
