// The relay's channel page in a real browser (issue 23 §1): headless Debian Chromium through
// playwright-core (as test/e2e), the page built by scripts/pageBuild.mjs, a real relay, the
// emulator posting a signed delivery to it, and a local app that checks the signature. Sign in,
// the delivery appears live, open it, replay it, filter, Copy as cURL, sign out, and a page on
// another origin trying to replay through the signed-in browser is refused; a channel token's
// page shows its own new delivery live and replays one only a subscriber took to the subscribers.
// Screenshots: test-results/page/*.png; SERVICE_HOOKS_UPDATE_DOCS=1 also copies them into docs/.
import { strict as assert } from 'node:assert';
import { copyFileSync, mkdirSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { request } from 'undici';
import { startEmulator, type EmulatorServer } from '../../../relay/emulator';
import { startRelay, type RelayServer } from '../../../relay/server';
import { verify } from '../../../src/core/signing';
import { forwardDelivery, subscribe } from '../../../relay/client';
import { SUBSCRIBER_TARGET } from '../../../src/core/relay/protocol';
import { post, ROOT, signed, startTarget, tempDir } from '../relay/support/helpers';
import { until } from '../../support/until';

const SECRET = 'page-channel-secret-0123456789';
const EMULATOR_TOKEN = 'page-emulator-token';
const RESULTS = join(ROOT, 'test-results', 'page');
const DOCS = { list: 'page-list', delivery: 'page-delivery', mobile: 'page-mobile-dark' } as const;

interface CheckingApp {
  url: string;
  /** Each request: whether its signature verified with SECRET. */
  results: boolean[];
  waitFor(n: number): Promise<void>;
  server: Server;
}

/** A local app that checks X-Service-Signature on the raw bytes, as a real receiver does. */
async function checkingApp(): Promise<CheckingApp> {
  const waiters: (() => void)[] = [];
  const app: CheckingApp = {
    url: '',
    results: [],
    waitFor: (n) =>
      new Promise<void>((resolve) => {
        const check = () => (app.results.length >= n ? resolve() : waiters.push(check));
        check();
      }),
    server: createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const ok = verify(Buffer.concat(chunks), req.headers['x-service-signature'] as string | undefined, [SECRET]).ok;
        app.results.push(ok);
        res.writeHead(ok ? 204 : 401).end();
        for (const w of waiters.splice(0)) w();
      });
    }),
  };
  app.server.listen(0, '127.0.0.1');
  await once(app.server, 'listening');
  app.url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/webhook`;
  return app;
}

/** Another site: a page on another port of 127.0.0.1 (the same "site" to SameSite) that tries to replay. */
async function attackerSite(relayUrl: string, seq: number): Promise<{ url: string; server: Server; cookies: string[] }> {
  const html = `<!doctype html><title>attacker</title><form id="f" method="POST" action="${relayUrl}/api/deliveries/${seq}/replay" enctype="text/plain"><input name='{"a":"' value='"}'></form>
<script>
fetch(${JSON.stringify(`${relayUrl}/api/deliveries/${seq}/replay`)}, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: '{}' })
  .finally(() => { document.title = 'fetched'; });
</script>`;
  // What the browser sends it: cookies ignore ports, so the relay page's cookie comes along.
  const cookies: string[] = [];
  const server = createServer((req, res) => {
    if (req.headers.cookie) cookies.push(req.headers.cookie);
    res.writeHead(200, { 'content-type': 'text/html' }).end(html);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`, server, cookies };
}

/** Waits until the list shows exactly `n` rows (the filters answer from the relay). */
async function rowsAre(page: Page, n: number): Promise<void> {
  // (The page's CSP allows no string evaluated as script, so locators rather than waitForFunction.)
  const rows = page.locator('#rows button.row');
  if (n > 0) await rows.nth(n - 1).waitFor({ state: 'attached' });
  await rows.nth(n).waitFor({ state: 'detached' });
  assert.equal(await rows.count(), n);
}

async function shot(page: Page, name: keyof typeof DOCS): Promise<void> {
  mkdirSync(RESULTS, { recursive: true });
  const file = join(RESULTS, `${DOCS[name]}.png`);
  await page.screenshot({ path: file, fullPage: true });
  if (process.env.SERVICE_HOOKS_UPDATE_DOCS === '1') copyFileSync(file, join(ROOT, 'docs', `${DOCS[name]}.png`));
}

describe('the relay page in Chromium (playwright-core, real relay, emulator, signature-checking app)', function () {
  this.timeout(120_000);
  let pageDir: string;
  let relay: RelayServer;
  let emulator: EmulatorServer;
  let app: CheckingApp;
  let browser: { context: BrowserContext; page: Page; close(): Promise<void> };
  let channelToken: string;
  const cspErrors: string[] = [];

  before(async () => {
    pageDir = tempDir('sh-page-');
    const { buildPage } = (await import(join(ROOT, 'scripts/pageBuild.mjs'))) as { buildPage: (dir: string) => Promise<Record<string, number>> };
    await buildPage(pageDir);
    app = await checkingApp();
    relay = await startRelay({ port: 0, dataDir: tempDir(), channels: { team: { secrets: [SECRET], forward: [app.url] } }, pageDir });
    // A channel of its own (API-created, with a token): it must never see team's deliveries.
    const made = await request(`${relay.url}/api/channels`, {
      method: 'POST',
      headers: { authorization: `Bearer ${relay.token}` },
      body: JSON.stringify({ name: 'side', secrets: [SECRET] }),
    });
    channelToken = ((await made.body.json()) as { token: string }).token;
    emulator = await startEmulator({ token: EMULATOR_TOKEN, port: 0 });
    const hook = await request(`${emulator.url}/api/v1/repos/acme/widgets/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${EMULATOR_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${relay.url}/hooks/team`, content_type: 'json', events: ['push', 'release'], secret: SECRET }),
    });
    assert.equal(hook.statusCode, 201, await hook.body.text());
    const { openBrowser } = (await import(join(ROOT, 'scripts/lib/code-server.mjs'))) as { openBrowser: (o?: object) => Promise<typeof browser> };
    browser = await openBrowser({ viewport: { width: 1100, height: 800 } });
    browser.context.setDefaultTimeout(20_000);
    browser.page.on('console', (m) => m.type() === 'error' && /Content Security Policy/i.test(m.text()) && cspErrors.push(m.text()));
  });
  after(async () => {
    await browser?.close();
    await emulator?.close();
    await relay?.close();
    app?.server.close();
  });

  async function emulatorEvent(event: string): Promise<void> {
    const r = await request(`${emulator.url}/_emulator/repos/acme/widgets/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${EMULATOR_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ event }),
    });
    assert.equal(r.statusCode, 202, await r.body.text());
  }

  it('is under 150 KB, served with a strict CSP and no inline script', async () => {
    const bytes = statSync(join(pageDir, 'app.js')).size + statSync(join(pageDir, 'app.css')).size;
    assert.ok(bytes < 150 * 1024, `bundle is ${bytes} bytes`);
    const res = await request(`${relay.url}/`);
    const html = await res.body.text();
    assert.match(String(res.headers['content-security-policy']), /default-src 'none'; script-src 'self'; style-src 'self'/);
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/);
    assert.doesNotMatch(html, /https?:\/\//, 'no external resource');
  });

  it('signs in (a wrong token gets a clear message), shows an emulator delivery live, filters, opens, replays and copies it as cURL', async () => {
    const { page } = browser;
    await page.goto(`${relay.url}/`);
    await page.fill('#token', 'not-a-token-of-this-relay');
    await page.click('#sign-in button[type=submit]');
    await page.waitForSelector('#sign-in-error:has-text("not a token of this relay")');
    await page.fill('#token', relay.token);
    await page.click('#sign-in button[type=submit]');
    await page.waitForSelector('#live-state:has-text("live")');
    assert.equal(await page.textContent('#scope'), 'admin: every channel');
    const cookies = await browser.context.cookies(relay.url);
    const session = cookies.find((c) => c.name === 'sh_page')!;
    assert.ok(session.httpOnly && session.sameSite === 'Strict' && session.expires > Date.now() / 1000);
    // No token in storage: only this tab's key of the session, in sessionStorage (this origin only).
    assert.equal(await page.evaluate('localStorage.length'), 0);
    assert.deepEqual(await page.evaluate('Object.keys(sessionStorage)'), ['sh_page_key']);
    assert.ok(!(await page.evaluate<string>('sessionStorage.getItem("sh_page_key")')).includes(relay.token));
    assert.ok(!page.url().includes(relay.token));

    // Live: posted by the emulator after the page loaded, shown without a reload.
    await emulatorEvent('push');
    const row = page.locator('#rows button.row', { hasText: 'push' });
    await row.waitFor();
    await app.waitFor(1);
    await page.locator('#rows button.row .forward.ok').first().waitFor();
    await emulatorEvent('release');
    await page.locator('#rows button.row', { hasText: 'release' }).waitFor();
    // A delivery signed with another secret: rejected, with the signature doctor's words.
    const forged = '{"action":"forged"}';
    assert.equal(
      (
        await post(
          `${relay.url}/hooks/team`,
          forged,
          signed('another-secret-0123456789', forged, { 'x-service-event': 'push', 'x-service-delivery': 'forged-1' }),
        )
      ).status,
      401,
    );
    await page.locator('#rows button.row .badge.rejected').waitFor();
    assert.ok(((await page.locator('#rows button.row .reason').textContent()) ?? '').length > 10);
    await shot(page, 'list');

    // Filters (applied by the relay): event, verification, forward outcome, delivery id.
    await page.fill('#f-event', 'release');
    await rowsAre(page, 1);
    await page.fill('#f-event', '');
    await page.selectOption('#f-verification', 'rejected');
    await rowsAre(page, 1);
    await page.selectOption('#f-verification', 'unverified');
    await page.waitForSelector('#rows li.empty');
    await page.selectOption('#f-verification', '');
    await page.selectOption('#f-outcome', 'ok');
    await page
      .locator('#rows button.row', { hasNot: page.locator('.forward.ok') })
      .first()
      .waitFor({ state: 'detached' });
    assert.ok((await page.locator('#rows button.row').count()) >= 1);
    await page.selectOption('#f-outcome', '');
    const pushId = (await row
      .filter({ hasNot: page.locator('.badge.rejected') })
      .locator('.id')
      .textContent())!;
    await page.fill('#f-id', pushId.slice(0, 8));
    await rowsAre(page, 1);
    await page.fill('#f-id', '');

    // The rejected one: the doctor's findings, worked out by the relay without showing the secret.
    await page.locator('#rows button.row', { has: page.locator('.badge.rejected') }).click();
    await page.waitForSelector('#doctor-findings li');
    const findings = (await page.textContent('#doctor'))!;
    assert.match(findings, /Signature doctor: the signature does not match/);
    assert.ok(!findings.includes(SECRET));
    await page.click('#back');

    // A delivery: redacted headers, the body, replay to the app (which checks the signature), cURL.
    await row.filter({ hasNot: page.locator('.badge.rejected') }).click();
    await page.waitForSelector('#headers');
    const headers = (await page.textContent('#headers'))!;
    assert.match(headers, /x-service-signature<redacted>/);
    assert.match((await page.textContent('#body'))!, /"ref":/);
    const before = app.results.length;
    await page.click('#replay');
    await page.waitForSelector('#action-result:has-text("204")');
    await app.waitFor(before + 1);
    assert.equal(app.results.at(-1), true, 'the replayed bytes carry a valid signature');
    await page.click('#copy-curl');
    const curl = (await page.textContent('#curl'))!;
    assert.match(curl, /^curl -X POST/);
    assert.match(curl, /x-service-signature: <redacted>/i);
    await shot(page, 'delivery');
    assert.deepEqual(cspErrors, []);
  });

  it('works at 360 px in the dark scheme without sideways scrolling', async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 360, height: 740 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${relay.url}/`);
    await page.locator('#rows button.row').first().waitFor();
    assert.ok(await page.evaluate('document.documentElement.scrollWidth <= 360'));
    const bg = await page.evaluate('getComputedStyle(document.body).backgroundColor');
    assert.equal(bg, 'rgb(13, 17, 23)');
    await shot(page, 'mobile');
    // Issue 36 item 20: the hex view's lines are columns: they scroll inside the view, never wrap.
    await page.locator('#rows button.row').first().click();
    await page.locator('button', { hasText: /^Hex$/ }).click();
    assert.equal(await page.evaluate("getComputedStyle(document.getElementById('body')).whiteSpace"), 'pre');
    assert.ok(
      await page.evaluate("(() => { const b = document.getElementById('body'); return b.scrollWidth > b.clientWidth; })()"),
      'a hex line is wider than the view: it scrolls',
    );
    assert.ok(await page.evaluate('document.documentElement.scrollWidth <= 360'), 'the page itself does not scroll sideways');
    await page.click('#back');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1100, height: 800 });
  });

  it('refuses a replay from another site through the signed-in browser, then signs out', async () => {
    const { page } = browser;
    const seq = relay.store.list({ channel: 'team' }).find((d) => d.forward.length > 0)!.seq;
    const replays = () => relay.store.get(seq)!.attempts.filter((a) => a.replay).length;
    const replaysBefore = replays();
    const appBefore = app.results.length;
    const attacker = await attackerSite(relay.url, seq);
    try {
      const probe = await browser.context.newPage();
      const refused = probe.waitForResponse((r) => r.url().endsWith(`/api/deliveries/${seq}/replay`));
      await probe.goto(attacker.url);
      assert.equal((await refused).status(), 403);
      await probe.waitForFunction('document.title === "fetched"');
      await probe.close();
    } finally {
      attacker.server.close();
    }
    assert.equal(replays(), replaysBefore);
    assert.equal(app.results.length, appBefore);
    // The other local server got the page's cookie; alone it is no session (issue 36 item 7).
    const stolen = attacker.cookies.join('; ');
    assert.match(stolen, /sh_page=/);
    for (const path of ['/page/session', '/api/deliveries']) {
      const r = await request(`${relay.url}${path}`, { headers: { cookie: stolen } });
      await r.body.dump();
      assert.equal(r.statusCode, 401, `${path} with the cookie another port got`);
    }

    await page.goto(`${relay.url}/`);
    await page.click('#sign-out');
    await page.waitForSelector('#sign-in-error:has-text("Signed out")');
    const after = await page.evaluate('fetch("/api/deliveries").then((r) => r.status)');
    assert.equal(after, 401);
  });

  it("a channel token sees its own channel only, in the page and in the page's API calls; older ones page in", async () => {
    const { page } = browser;
    // 51 of its own: one page (50) first, the oldest through "Older deliveries" (before=).
    for (let i = 0; i < 51; i++) {
      const body = `{"n":${i}}`;
      assert.equal(
        (await post(`${relay.url}/hooks/side`, body, signed(SECRET, body, { 'x-service-event': 'push', 'x-service-delivery': `side-${i}` }))).status,
        200,
      );
    }
    await page.goto(`${relay.url}/`);
    await page.fill('#token', channelToken);
    await page.click('#sign-in button[type=submit]');
    await page.waitForSelector('#live-state:has-text("live")');
    assert.equal(await page.textContent('#scope'), 'channel side');
    await page.locator('#rows button.row').nth(49).waitFor();
    assert.equal(await page.locator('#rows button.row').count(), 50);
    assert.equal(await page.locator('#rows .channel').count(), 0, 'no channel column for a channel token');
    await page.click('#older');
    await page.locator('#rows button.row', { hasText: 'side-0' }).waitFor();
    assert.equal(await page.locator('#rows button.row').count(), 51);
    assert.ok(await page.isHidden('#older'));
    assert.equal(await page.locator('#rows button.row', { hasText: 'release' }).count(), 0, "none of team's deliveries");
    assert.equal(await page.locator('#f-channel').count(), 0, 'no channel filter for a channel token');
    // Its own new delivery arrives on the live feed, without a reload.
    const live = '{"live":true}';
    assert.equal(
      (await post(`${relay.url}/hooks/side`, live, signed(SECRET, live, { 'x-service-event': 'push', 'x-service-delivery': 'side-live' }))).status,
      200,
    );
    await page.locator('#rows button.row', { hasText: 'side-live' }).waitFor();
    const teamSeq = relay.store.list({ channel: 'team' })[0]!.seq;
    const withKey = '{ headers: { "x-page-key": sessionStorage.getItem("sh_page_key") } }';
    assert.equal(await page.evaluate(`fetch("/api/deliveries/${teamSeq}", ${withKey}).then((r) => r.status)`), 404);
    assert.equal(await page.evaluate(`fetch("/api/deliveries?channel=team", ${withKey}).then((r) => r.status)`), 403);
    await page.click('#sign-out');
    await page.waitForSelector('#sign-in');
  });

  it("replays a delivery only a subscriber took to the channel's subscribers, says so, and shows the new attempt (issue 36 item 5)", async () => {
    const { page } = browser;
    const subscriberApp = await startTarget();
    const forwarded = (d: Parameters<typeof forwardDelivery>[0]) => forwardDelivery(d, subscriberApp.url);
    const sub = subscribe({
      url: relay.url.replace(/^http/, 'ws'),
      token: channelToken,
      since: relay.store.lastSeq,
      onDelivery: async (d) => {
        const r = await forwarded(d);
        return r.ok ? { forwarded: { status: r.status! } } : undefined;
      },
      onReplay: async (d) => {
        const r = await forwarded(d);
        sub.report(d.seq, { status: r.status ?? 0, state: r.ok ? 'ok' : 'failed', replay: true });
      },
    });
    try {
      const body = '{"took":"subscriber"}';
      const sent = await post(`${relay.url}/hooks/side`, body, signed(SECRET, body, { 'x-service-event': 'push', 'x-service-delivery': 'side-sub' }));
      const seq = (sent.json as { seq: number }).seq;
      await subscriberApp.waitFor(1);
      await until(
        () => (relay.store.get(seq)?.summary.forward.some((f) => f.target === SUBSCRIBER_TARGET && f.status === 'ok') ? true : undefined),
        (wake) => (relay.store.on('forward', wake), () => relay.store.off('forward', wake)),
      );
      await page.goto(`${relay.url}/`);
      await page.fill('#token', channelToken);
      await page.click('#sign-in button[type=submit]');
      await page.locator('#rows button.row', { hasText: 'side-sub' }).click();
      await page.waitForSelector('#replay');
      await page.click('#replay');
      await page.waitForSelector('#action-result:has-text("Sent again to 1 subscriber of channel side")');
      await subscriberApp.waitFor(2);
      assert.equal(subscriberApp.received[1]!.body.toString(), body, 'the subscriber posted the same bytes again');
      await page.waitForSelector('#attempts li:has-text("replay subscriber")');
      await page.click('#sign-out');
      await page.waitForSelector('#sign-in');
    } finally {
      sub.close();
      await sub.closed;
      await subscriberApp.close();
    }
  });

  it('filters on the relay over the whole channel, not only the rows loaded (issue 36 item 6)', async () => {
    const { page } = browser;
    const made = await request(`${relay.url}/api/channels`, {
      method: 'POST',
      headers: { authorization: `Bearer ${relay.token}` },
      body: JSON.stringify({ name: 'sifted', secrets: [SECRET] }),
    });
    const token = ((await made.body.json()) as { token: string }).token;
    // 5 rejected ones first, then a page and more of good ones: the rejected are a page back.
    for (let i = 0; i < 5; i++) {
      const body = `{"bad":${i}}`;
      const headers = signed('another-secret-0123456789', body, { 'x-service-event': 'push', 'x-service-delivery': `sifted-bad-${i}` });
      assert.equal((await post(`${relay.url}/hooks/sifted`, body, headers)).status, 401);
    }
    for (let i = 0; i < 55; i++) {
      const body = `{"good":${i}}`;
      const headers = signed(SECRET, body, { 'x-service-event': 'push', 'x-service-delivery': `sifted-good-${i}` });
      assert.equal((await post(`${relay.url}/hooks/sifted`, body, headers)).status, 200);
    }
    await page.goto(`${relay.url}/`);
    await page.fill('#token', token);
    await page.click('#sign-in button[type=submit]');
    await page.waitForSelector('#live-state:has-text("live")');
    await rowsAre(page, 50);
    await page.selectOption('#f-verification', 'rejected');
    await rowsAre(page, 5);
    assert.equal(await page.locator('#rows .badge.rejected').count(), 5);
    await page.selectOption('#f-verification', '');
    await page.fill('#f-id', 'SIFTED-BAD-3');
    await rowsAre(page, 1);
    await page.fill('#f-id', '');
    await page.click('#sign-out');
    await page.waitForSelector('#sign-in');
  });
});
