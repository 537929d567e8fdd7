// Settings are read through the SETTINGS keys of ids.ts, which match package.json: a mistyped key
// in the reader (or a setting read by a literal string elsewhere) fails here.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DEFAULTS, SETTINGS } from '../../../src/extension/ids';
import { readSettings, type Settings } from '../../../src/extension/readSettings';

const ROOT = join(__dirname, '..', '..', '..');
const props: Record<string, { type: string; default: unknown }> = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).contributes.configuration
  .properties;

/** A configuration that knows only package.json's keys, each set to a value that is not its default. */
function configured(): { get<T>(key: string): T | undefined; values: Record<string, unknown> } {
  const values: Record<string, unknown> = {};
  for (const [key, p] of Object.entries(props)) {
    values[key] =
      p.type === 'array' ? [`${key}-1`, `${key}-2`] : p.type === 'integer' || p.type === 'number' ? 4242 : p.type === 'boolean' ? !p.default : `${key}-value`;
  }
  return { values, get: <T>(key: string) => values[key] as T | undefined };
}

describe('settings', () => {
  it('every field is read from its package.json key (a non-default value comes through)', () => {
    const c = configured();
    const s = readSettings(c);
    const fields = Object.keys(SETTINGS) as (keyof typeof SETTINGS)[];
    assert.deepEqual(Object.keys(s).sort(), [...fields].sort(), 'one field per SETTINGS key');
    for (const field of fields) assert.deepEqual(s[field as keyof Settings], c.values[SETTINGS[field]], `${field} ← ${SETTINGS[field]}`);
  });

  it('unset settings give the documented defaults', () => {
    const s = readSettings({ get: () => undefined });
    assert.equal(s.baseUrl, DEFAULTS.baseUrl);
    assert.equal(s.relayPort, DEFAULTS.relayPort);
    assert.equal(s.refreshInterval, 10);
    assert.deepEqual(s.workflowGlobs, DEFAULTS.workflowGlobs);
    for (const [field, key] of Object.entries(SETTINGS)) {
      const declared = props[key]!.default;
      if (field === 'baseUrl' || typeof declared !== 'object') assert.deepEqual(s[field as keyof Settings], declared, field);
    }
  });

  it('refresh interval: 0 turns it off, nonsense falls back to the default', () => {
    const with_ = (v: unknown) => readSettings({ get: <T>(k: string) => (k === SETTINGS.refreshInterval ? (v as T) : undefined) }).refreshInterval;
    assert.equal(with_(0), 0);
    assert.equal(with_(2.5), 2.5);
    assert.equal(with_(-3), 10);
    assert.equal(with_('x'), 10);
  });

  it('no module of the extension names a setting by a string literal (only ids.ts does)', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : n.endsWith('.ts') ? [join(dir, n)] : []));
    // Other ids that share the prefix: the Relay view's status bar item and the diagnostics collection.
    const notSettings = ['serviceHooks.relay', 'serviceHooks.workflows'];
    const offenders = files(join(ROOT, 'src', 'extension'))
      .filter((f) => !f.endsWith(join('extension', 'ids.ts')))
      .flatMap((f) =>
        [...readFileSync(f, 'utf8').matchAll(/['"`](serviceHooks\.[\w.]+)['"`]/g)]
          .filter((m) => !notSettings.includes(m[1]!))
          .map((m) => `${relative(ROOT, f)}: ${m[1]}`),
      );
    assert.deepEqual(offenders, []);
  });
});
