// The ids in src/extension/ids.ts and package.json `contributes` must match in both directions.
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROW_COMMANDS } from '../../../src/core/tree';
import { COMMANDS, CONTEXT, DEFAULTS, EXTENSION_ID, HIDDEN_COMMANDS, SETTINGS, VIEW_CONTAINER, VIEW_ITEMS, VIEWS } from '../../../src/extension/ids';

const ROOT = join(__dirname, '..', '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const c = pkg.contributes;
const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();

describe('package.json contributes ↔ src/extension/ids.ts', () => {
  it("EXTENSION_ID is the manifest's publisher.name", () => {
    assert.equal(EXTENSION_ID, `${pkg.publisher}.${pkg.name}`.toLowerCase());
  });

  it('commands match exactly, all in category "Service Webhooks"', () => {
    const declared: { command: string; category: string; title: string }[] = c.commands;
    assert.deepEqual(sorted(declared.map((x) => x.command)), sorted(Object.values(COMMANDS)));
    for (const d of declared) {
      assert.equal(d.category, 'Service Webhooks', d.command);
      assert.ok(d.title.length > 0, d.command);
    }
    assert.equal(declared.length, new Set(declared.map((x) => x.command)).size, 'no duplicates');
  });

  it('every command id is registered by exactly one module in src/extension', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
    const sources = files(join(ROOT, 'src/extension')).map((f) => readFileSync(f, 'utf8'));
    for (const [key, id] of Object.entries(COMMANDS)) {
      const registrations = sources.filter((s) => new RegExp(`(id: COMMANDS\\.${key},|registerCommand\\(COMMANDS\\.${key}\\b)`).test(s));
      assert.equal(registrations.length, 1, `${id} registered once`);
    }
  });

  it('one file per palette command under src/extension/commands', () => {
    for (const key of Object.keys(COMMANDS)) {
      assert.ok(existsSync(join(ROOT, 'src/extension/commands', `${key}.ts`)), `commands/${key}.ts`);
    }
  });

  it('hidden commands are hidden from the palette and nothing else is', () => {
    const hidden = (c.menus.commandPalette as { command: string; when: string }[]).filter((m) => m.when === 'false').map((m) => m.command);
    assert.deepEqual(sorted(hidden), sorted(HIDDEN_COMMANDS));
  });

  it('menus reference only declared commands and views', () => {
    const ids = new Set<string>(Object.values(COMMANDS));
    for (const [menu, entries] of Object.entries(c.menus) as [string, { command: string; when?: string }[]][]) {
      for (const e of entries) {
        assert.ok(ids.has(e.command), `${menu}: ${e.command}`);
        for (const m of (e.when ?? '').matchAll(/view == ([\w.]+)/g)) assert.ok(Object.values(VIEWS).includes(m[1] as never), `${menu}: ${m[1]}`);
        for (const m of (e.when ?? '').matchAll(/viewItem == ([\w.]+)/g)) assert.ok(VIEW_ITEMS.includes(m[1] as never), `${menu}: ${m[1]}`);
      }
    }
  });

  it('inline actions exist for ping, retry, replay and delete', () => {
    const inline = (c.menus['view/item/context'] as { command: string; group: string }[]).filter((m) => m.group.startsWith('inline')).map((m) => m.command);
    for (const id of [COMMANDS.pingWebhook, COMMANDS.retryDelivery, COMMANDS.replayDelivery, COMMANDS.deleteWebhook]) assert.ok(inline.includes(id), id);
  });

  it('views and the container match', () => {
    assert.deepEqual(
      c.viewsContainers.activitybar.map((v: { id: string }) => v.id),
      [VIEW_CONTAINER],
    );
    assert.equal(c.viewsContainers.activitybar[0].title, 'Service');
    assert.ok(existsSync(join(ROOT, c.viewsContainers.activitybar[0].icon)), 'container icon exists');
    assert.deepEqual(sorted(Object.keys(c.views)), [VIEW_CONTAINER]);
    assert.deepEqual(sorted(c.views[VIEW_CONTAINER].map((v: { id: string }) => v.id)), sorted(Object.values(VIEWS)));
  });

  it('welcome views cover signed out, no repository, no webhooks, and a stopped relay', () => {
    const welcome = c.viewsWelcome as { view: string; when: string; contents: string }[];
    const on = (view: string, when: RegExp, cmd: string) =>
      assert.ok(
        welcome.some((w) => w.view === view && when.test(w.when) && w.contents.includes(`command:${cmd}`)),
        `${view} ${when}`,
      );
    on(VIEWS.webhooks, /^isWorkspaceTrusted && !serviceHooks\.signedIn$/, COMMANDS.signIn);
    on(VIEWS.webhooks, /!serviceHooks\.hasRepository/, 'workbench.action.openSettings');
    on(VIEWS.webhooks, /!serviceHooks\.hasWebhooks/, COMMANDS.addWebhook);
    on(VIEWS.relay, /!serviceHooks\.relayRunning/, COMMANDS.startRelay);
    for (const w of welcome) for (const m of w.when.matchAll(/serviceHooks\.\w+/g)) assert.ok(Object.values(CONTEXT).includes(m[0] as never), m[0]);
  });

  it('settings match exactly, with the documented defaults', () => {
    const props = c.configuration.properties;
    assert.deepEqual(sorted(Object.keys(props)), sorted(Object.values(SETTINGS)));
    assert.equal(props[SETTINGS.baseUrl].default, DEFAULTS.baseUrl);
    assert.equal(props[SETTINGS.baseUrl].default, 'http://127.0.0.1:8787');
    assert.equal(props[SETTINGS.relayPort].default, 8788);
    assert.deepEqual(props[SETTINGS.workflowGlobs].default, ['**/.github/workflows/*.{yml,yaml}', '**/action.{yml,yaml}']);
    assert.equal(props[SETTINGS.eventHeader].default, 'X-Service-Event');
    assert.equal(props[SETTINGS.deliveryHeader].default, 'X-Service-Delivery');
    assert.deepEqual(props[SETTINGS.repositories].default, []);
    assert.equal(props[SETTINGS.relayForwardUrl].type, 'string');
    assert.ok(!Object.keys(props).some((k) => /token/i.test(k)), 'no setting holds a token');
    assert.equal(props[SETTINGS.baseUrl].scope, 'machine', 'a workspace cannot redirect the token to another address');
    assert.equal(props[SETTINGS.relayForwardUrl].scope, 'machine', 'a workspace cannot redirect relayed deliveries to another app');
    assert.equal(props[SETTINGS.relayForwardCa].scope, 'machine', 'a workspace cannot change whom the editor trusts for local https apps');
  });

  it('commands referenced by tree rows are declared', () => {
    for (const id of Object.values(ROW_COMMANDS)) assert.ok(Object.values(COMMANDS).includes(id as never), id);
  });

  it('engines.vscode fits code-server 4.100.3', () => {
    assert.equal(pkg.engines.vscode, '^1.100.0');
  });
});
