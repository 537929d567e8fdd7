// The emulator's store owns its mutations: each one reports itself for persistence, reads do not.
import assert from 'node:assert/strict';
import { EmulatorStore } from '../../../relay/emulator/store';

describe('emulator store', () => {
  const at = new Date(Date.UTC(2026, 10, 23, 12, 0, 0));

  it('every mutation persists itself; reads do not', () => {
    let writes = 0;
    const store = new EmulatorStore(undefined, { persist: () => writes++ });
    const step = (what: string, f: () => unknown, expected = 1) => {
      const before = writes;
      f();
      assert.equal(writes - before, expected, what);
    };
    step('ensureRepo (new)', () => store.ensureRepo('acme/widgets'));
    step('ensureRepo (existing)', () => store.ensureRepo('acme/widgets'), 0);
    const w = store.addWebhook('acme/widgets', { url: 'http://127.0.0.1:1/h', events: ['push'] }, at);
    step('updateWebhook', () => store.updateWebhook(w.id, { events: ['issue'], secret: 's' }));
    step('updateWebhook of an unknown id', () => assert.equal(store.updateWebhook('99', { events: ['push'] }), undefined), 0);
    step('importIssues', () => store.importIssues('acme/widgets', [{ number: 1, title: 't', body: '', labels: [], assignees: [], state: 'open' }]));
    step('upsertSecret', () => assert.equal(store.upsertSecret('acme/widgets', { name: 'A', protected: false }, at), 'created'));
    step('upsertSecret again', () => assert.equal(store.upsertSecret('acme/widgets', { name: 'A', protected: true }, at), 'updated'));
    step('deleteWebhook', () => store.deleteWebhook(w.id));
    step('reads', () => [store.webhooksOf('acme/widgets'), store.issuesOf('acme/widgets'), store.secretsOf('acme/widgets'), store.pending()], 0);
    assert.deepEqual(store.secretsOf('acme/widgets'), [{ name: 'A', protected: true, created_at: '2026-11-23T12:00:00Z', updated_at: '2026-11-23T12:00:00Z' }]);
    assert.deepEqual(JSON.parse(store.snapshot()).webhooks, []);
  });

  it('updateWebhook applies only the fields given; clearSecret removes the secret', () => {
    const store = new EmulatorStore();
    const w = store.addWebhook('a/b', { url: 'http://127.0.0.1:1/h', events: ['push'], secret: 's' }, at);
    store.updateWebhook(w.id, { url: 'http://127.0.0.1:2/h' });
    assert.deepEqual([w.url, w.events, w.secret], ['http://127.0.0.1:2/h', ['push'], 's']);
    store.updateWebhook(w.id, { clearSecret: true });
    assert.equal('secret' in w, false);
  });
});
