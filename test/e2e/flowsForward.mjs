// UI flow of issue 38 item 7 (kept apart from flows.mjs, which lists it at its end): Forward
// Webhooks to Local App… with the choices of a `service-hooks forward` set-up: a route per event
// and an event filter, against the emulator and the demo relay, with two local apps: one over
// https with a certificate of a local CA the editor does not know (not run-e2e's), trusted through
// the CA file step, which Replay Delivery to that app uses too.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTestCerts } from '../../scripts/lib/test-certs.mjs';
import { mergeJsonFile } from '../../scripts/start.mjs';
import { apiChannels, startLocalApp, until } from './flows.mjs';

const PALETTE = 'Service Webhooks';

function assert(cond, message) {
  if (!cond) throw new Error(message);
}

export const forwardFlows = [
  {
    name: 'Forward Webhooks to Local App… with a route and a filter: push to one app, release to an https app (its CA file typed), issue skipped and shown so in the Relay view',
    async run({ wb, page, demo, api, shot }) {
      const localCa = makeTestCerts(mkdtempSync(join(tmpdir(), 'sh-e2e-local-ca-')));
      const main = await startLocalApp(demo.relayData);
      const releases = await startLocalApp(demo.relayData, localCa);
      try {
        const remote = new URL(demo.relayUrl).host;
        const channelsBefore = new Set(apiChannels(demo.relayData).map((c) => c.name));
        await wb.clearNotifications();
        await wb.runCommand(`${PALETTE}: Connect to Relay…`);
        await wb.submitInput(demo.relayUrl, { title: 'Connect to Relay (1/2): Address' });
        await wb.submitInput(demo.relayToken(), { title: 'Connect to Relay (2/2): Token' });
        await wb.seeNotification(`Connected to ${remote}`);
        await wb.clearNotifications();

        await wb.runCommand(`${PALETTE}: Forward Webhooks to Local App…`);
        await wb.waitForQuickInput('Forward Webhooks to Local App: Channel');
        await wb.pick('A new channel and webhook', { filter: 'new channel' });
        // The webhook's subscription: push, release and issue.
        await wb.waitForQuickInput('Forward Webhooks to Local App (2/4): Events');
        await wb.checkItems(['push', 'release', 'issue']);
        await wb.acceptPick();
        await wb.submitInput(main.url, { title: 'Forward Webhooks to Local App (3/4): Local URL' });
        // release to an app of its own; issue left out (the filter); then the set-up as shown.
        const step = 'Forward Webhooks to Local App (4/4): Events and apps';
        await wb.waitForQuickInput(step);
        await wb.pick('release');
        await wb.waitForQuickInput(`${step}: release`);
        await wb.pick('Its own app');
        // A wrong URL is refused in the quick input, which stays open.
        await wb.waitForQuickInput(`${step}: release's app`);
        await page.locator('.quick-input-widget input.input').fill('ftp://127.0.0.1/x');
        await page.locator('.quick-input-widget', { hasText: 'Use an http:// or https:// URL' }).waitFor();
        await page.locator('.quick-input-widget input.input').fill(`http://user:pw@127.0.0.1:${new URL(releases.url).port}/webhook`);
        await page.locator('.quick-input-widget', { hasText: 'must not hold a user or password' }).waitFor();
        await shot('forward-routes-bad-url');
        await wb.submitInput(releases.url, { title: `${step}: release's app` });
        await wb.waitForQuickInput(step);
        await page.locator('.quick-input-list .monaco-list-row', { hasText: `→ ${releases.url}` }).waitFor();
        await wb.pick('issue');
        await wb.waitForQuickInput(`${step}: issue`);
        await wb.pick('Do not forward');
        await wb.waitForQuickInput(step);
        await page.locator('.quick-input-list .monaco-list-row', { hasText: 'not forwarded (skipped by the filter)' }).waitFor();
        await shot('forward-routes');
        await wb.pick('Forward as shown');
        // The release app is https: how to trust it. A CA file that is missing, then a key, are refused in the input.
        await wb.waitForQuickInput('Forward Webhooks to Local App (4/4): HTTPS trust');
        await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Skip verification' }).waitFor(); // the app is on this machine
        await wb.pick('Trust a CA file');
        await wb.waitForQuickInput('HTTPS trust: CA file');
        const input = page.locator('.quick-input-widget input.input');
        const missing = join(localCa.dir, 'missing.pem');
        await input.fill(missing);
        await page.locator('.quick-input-widget', { hasText: `There is no file at ${missing}.` }).waitFor();
        await input.fill(localCa.serverKey);
        await page.locator('.quick-input-widget', { hasText: 'holds no PEM certificate' }).waitFor();
        await shot('forward-routes-bad-ca');
        await wb.submitInput(localCa.caCert, { title: 'HTTPS trust: CA file' });
        await wb.seeNotification(
          new RegExp(`Forwarding acme/widgets webhooks \\(push, release; issue skipped\\) through .* to ${main.url} \\(release to ${releases.url}\\)`),
        );

        const channel = apiChannels(demo.relayData).find((c) => !channelsBefore.has(c.name));
        assert(channel, 'the relay has no new channel after "Forward Webhooks to Local App…"');
        const ingress = `${demo.relayUrl}/hooks/${channel.name}`;
        const hook = (await api.webhooks()).find((h) => h.url === ingress);
        assert(hook, `the emulator lists no webhook to ${ingress}`);
        // The Relay view: the set-up's default app in its label, its route and its filter beside it.
        await wb.showContainer('Service');
        const mainHost = new URL(main.url).host;
        const releasesHost = new URL(releases.url).host;
        await wb
          .treeRow('Relay', new RegExp(`acme/widgets → ${mainHost}\\s*channel ${channel.name} · release → ${releasesHost} · only push, release`))
          .waitFor();

        // The service fires the three: each app gets its own, verified; issue reaches neither.
        const idOf = (fired) => fired.deliveries.find((d) => d.webhook_id === hook.id)?.id;
        const pushId = idOf(await api.fire('push'));
        const releaseId = idOf(await api.fire('release'));
        const issueId = idOf(await api.fire('issue'));
        assert(pushId && releaseId && issueId, `the emulator made no delivery for webhook ${hook.id}`);
        const gotPush = await until('the main app to get the push', main.events, 'delivery', () => main.seen.find((d) => d.id === pushId));
        const gotRelease = await until('the release app to get the release', releases.events, 'delivery', () => releases.seen.find((d) => d.id === releaseId));
        // The https app got it: the editor trusted the CA kept in serviceHooks.relay.forwardCa.
        assert(gotPush.valid && gotRelease.valid, `a delivery arrived unverified: ${JSON.stringify([gotPush, gotRelease])}`);
        // The issue row says skipped, neither delivered nor failed; by then the issue was handled.
        const listed = async () => {
          const res = await fetch(`${demo.relayUrl}/api/deliveries?channel=${channel.name}&limit=10`, {
            headers: { authorization: `Bearer ${demo.relayToken()}` },
          });
          return (await res.json()).deliveries;
        };
        await wb.treeRow('Relay', /#\d+ issue\s*✓ verified skipped by the filter/).waitFor();
        const issue = (await listed()).find((d) => d.event === 'issue');
        assert(issue, `the relay lists no issue delivery on channel ${channel.name}`);
        const issueForward = issue.forward;
        assert(
          issueForward.length === 1 && issueForward[0].status === 'skipped',
          `the relay records the issue delivery as ${JSON.stringify(issueForward)}, expected skipped`,
        );
        assert(
          main.seen.every((d) => d.event === 'push'),
          `the main app got ${JSON.stringify(main.seen)}`,
        );
        assert(
          releases.seen.every((d) => d.event === 'release'),
          `the release app got ${JSON.stringify(releases.seen)}`,
        );
        await page.mouse.move(5, 5);
        await shot('forward-routes-relay');

        // Replay Delivery of the release goes to the https app with the set-up's trust (the CA file
        // setting), as forwarding does: the app gets it again, verified.
        const release = (await listed()).find((d) => d.event === 'release');
        assert(release, `the relay lists no release delivery on channel ${channel.name}`);
        const releasesBefore = releases.seen.length;
        await wb.clearNotifications();
        await wb.runCommand(`${PALETTE}: Replay Delivery`);
        await wb.waitForQuickInput('Replay Delivery');
        await wb.pick(`#${release.seq} release`);
        await wb.seeNotification(`Replayed #${release.seq} to ${releases.url}: HTTP 204`);
        const replayed = await until('the release app to get the replay', releases.events, 'delivery', () => releases.seen[releasesBefore]);
        assert(replayed.valid && replayed.event === 'release', `the replay arrived as ${JSON.stringify(replayed)}`);
      } finally {
        await main.close();
        await releases.close();
        mergeJsonFile(demo.userSettings, { 'serviceHooks.relay.forwardCa': '' });
        rmSync(localCa.dir, { recursive: true, force: true });
      }
    },
  },
];
