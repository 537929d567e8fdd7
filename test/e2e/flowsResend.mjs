// UI flows of issue 28 items 8 and 13 (kept apart from flows.mjs, which lists them at its end):
// Retry re-sends what the user typed, with the service down and back; Send Sample Event….
import { connect, createServer } from 'node:net';
import { DEMO_SECRET } from '../../scripts/start.mjs';

const PALETTE = 'Service Webhooks';

function assert(cond, message) {
  if (!cond) throw new Error(message);
}

/**
 * A TCP proxy to the emulator on a port of its own that is refused until `up()` and again after
 * `down()`: the service as seen at another base URL, going away and coming back.
 */
async function serviceProxy(targetUrl) {
  const target = Number(new URL(targetUrl).port);
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = probe.address().port;
  await new Promise((resolve) => probe.close(resolve));
  const sockets = new Set();
  let server;
  const up = async () => {
    server = createServer((client) => {
      const upstream = connect(target, '127.0.0.1');
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  };
  const down = async () => {
    if (!server) return;
    const closed = new Promise((resolve) => server.close(resolve));
    for (const s of sockets) s.destroy();
    await closed;
    server = undefined;
  };
  return { url: `http://127.0.0.1:${port}`, up, down };
}

/** Sets a (machine) setting through the Settings editor's Remote tab, as a user would, and closes it. */
async function setUserSetting(wb, page, key, value) {
  await wb.runCommand('Preferences: Open User Settings');
  const search = page.locator('.settings-editor .settings-header .monaco-editor textarea').first();
  await search.waitFor();
  await search.focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.type(key);
  // serviceHooks.baseUrl is machine-scoped: with the extension host on code-server's side it is set on the Remote tab.
  await page.locator('.settings-editor .settings-tabs-widget .action-label', { hasText: 'Remote' }).first().click();
  const input = page.locator(`.settings-editor input[aria-label="${key}"]`).first();
  await input.waitFor();
  await input.fill(value);
  await page.keyboard.press('Tab');
  await page.waitForFunction(([k, v]) => document.querySelector(`.settings-editor input[aria-label="${k}"]`)?.value === v, [key, value]);
  await wb.runCommand('View: Close All Editors');
}

/** Clicks `button` on the toast whose message matches `text`. */
async function clickOnToast(wb, text, button) {
  const toast = wb.notification(text).first();
  await toast.waitFor();
  await toast.locator('.monaco-button', { hasText: button }).first().click();
}

export const resendFlows = [
  {
    name: 'with the service down, Retry of Sign In and of Create CI Secret re-sends what was typed (no input asked again)',
    async run({ wb, page, demo, shot }) {
      const proxy = await serviceProxy(demo.emulatorUrl);
      try {
        await wb.clearNotifications();
        await setUserSetting(wb, page, 'serviceHooks.baseUrl', proxy.url);
        await wb.showContainer('Service');
        // A new base URL has no token: the view asks to sign in (the setting has been read).
        await wb.pane('Webhooks').locator('.welcome-view-content', { hasText: 'Sign in' }).waitFor();
        await wb.runCommand(`${PALETTE}: Sign In`);
        await wb.submitInput(demo.token, { title: `Sign in to the service at ${proxy.url}` });
        await wb
          .notification(/Cannot reach the service/)
          .first()
          .waitFor();
        await shot('resend-signin-down');
        await proxy.up();
        await clickOnToast(wb, /Cannot reach the service/, 'Retry');
        await wb.seeNotification('Signed in to the service.');
        assert(!(await page.locator('.quick-input-widget').isVisible()), 'Retry of Sign In asked for something again');
        await wb.treeRow('Webhooks', 'acme/widgets').waitFor();
        await wb.clearNotifications();

        await proxy.down();
        const name = `E2E_RETRY_${Date.now()}`;
        await wb.runCommand(`${PALETTE}: Create CI Secret`);
        await wb.submitInput(name, { title: 'Create CI Secret (1/3)' });
        await wb.submitInput('value-typed-once', { title: 'Create CI Secret (2/3)' });
        await wb.waitForQuickInput('Create CI Secret (3/3)');
        await wb.pick('Not protected');
        await wb
          .notification(/Cannot reach the service/)
          .first()
          .waitFor();
        await proxy.up();
        await clickOnToast(wb, /Cannot reach the service/, 'Retry');
        await wb.seeNotification(`CI secret ${name} created.`);
        assert(!(await page.locator('.quick-input-widget').isVisible()), 'Retry of Create CI Secret asked for something again');
        const res = await fetch(`${demo.emulatorUrl}/_emulator/repos/acme/widgets/secrets`, { headers: { authorization: `Bearer ${demo.token}` } });
        const secrets = await res.json();
        assert(
          secrets.some((s) => s.name === name && s.protected === false),
          `the emulator lists no secret ${name}: ${JSON.stringify(secrets)}`,
        );
        await wb.clearNotifications();
      } finally {
        await setUserSetting(wb, page, 'serviceHooks.baseUrl', demo.emulatorUrl).catch(() => undefined);
        await proxy.down();
      }
    },
  },
  {
    name: '"Send Sample Event…" from a webhook row\'s context menu: the receiver app gets a typed, signed sample marked as a test send',
    async run({ wb, page, demo, api, shot }) {
      const hook = (await api.webhooks()).find((h) => h.url.startsWith(demo.relayUrl));
      assert(hook, `no demo webhook points at the relay ${demo.relayUrl}`);
      const u = new URL(hook.url);
      await wb.clearNotifications();
      await wb.showContainer('Service');
      const row = wb.treeRow('Webhooks', `${u.host}${u.pathname}`).first();
      await row.click({ button: 'right' });
      // The menu ignores a click that comes too soon after it opened: point at the item, then Enter.
      const item = page.locator('.monaco-menu .action-item', { hasText: 'Send Sample Event…' }).first();
      await item.hover();
      await page.locator('.monaco-menu .action-item.focused', { hasText: 'Send Sample Event…' }).first().waitFor();
      await page.keyboard.press('Enter');
      await wb.waitForQuickInput('Send Sample Event (2/2)');
      await shot('sample-event');
      await wb.pick('issue', { filter: 'issue' });
      // The demo relay was not started by the editor: it holds no secret for it and asks (not stored).
      await wb.submitInput(DEMO_SECRET, { title: 'the webhook secret to sign with' });
      await wb.seeNotification(/Sent a sample issue to .*answered 200/);
      const said = () => demo.receiver.output();
      await new Promise((resolve, reject) => {
        const check = () => {
          if (/verified\s+event=issue delivery=test-/.test(said())) {
            demo.receiver.child.stdout.off('data', check);
            resolve();
          }
        };
        demo.receiver.child.stdout.on('data', check);
        check();
        demo.receiver.child.once('exit', () => reject(new Error('the receiver app exited')));
      });
      await wb.clearNotifications();
    },
  },
];
