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

  describe('bulk import', () => {
    type Issue = { number: number; title: string; body: string; labels: unknown[]; assignees: unknown[]; state: 'open' | 'closed' };
    const issue = (number: number, title = `#${number}`): Issue => ({ number, title, body: '', labels: [], assignees: [], state: 'open' });
    /** Issues whose `number` reads are counted: the work an import does per stored issue. */
    function counted(numbers: number[], reads: { n: number }): Issue[] {
      return numbers.map((n) => {
        const i = issue(n);
        Object.defineProperty(i, 'number', { enumerable: true, get: () => (reads.n++, n) });
        return i;
      });
    }

    it('replaces issues with a number imported before and keeps the list in number order', () => {
      const store = new EmulatorStore();
      store.importIssues('a/b', [issue(5), issue(1), issue(3)]);
      assert.deepEqual(
        JSON.parse(store.snapshot()).repos['a/b'].issues.map((i: Issue) => i.number),
        [1, 3, 5],
      );
      assert.deepEqual(store.importIssues('a/b', [issue(4), issue(3, 'again'), issue(9), issue(0.5 * 4)]), { replaced: 1 }, 'issue 3 existed');
      assert.deepEqual(
        store.issuesOf('a/b').map((i) => [i.number, i.title]),
        [
          [1, '#1'],
          [2, '#2'],
          [3, 'again'],
          [4, '#4'],
          [5, '#5'],
          [9, '#9'],
        ],
      );
      const saved = JSON.parse(store.snapshot());
      assert.deepEqual(saved.repos['a/b'].issues, store.issuesOf('a/b'), 'the state file holds the second import too');
      assert.deepEqual(Object.keys(saved).sort(), ['deliveries', 'next_webhook_id', 'repos', 'version', 'webhooks']);
    });

    it('is linear in the stored issues, not quadratic: 2,000 into 4,000 reads each stored number a few times', () => {
      const reads = { n: 0 };
      const existing = counted(
        Array.from({ length: 4000 }, (_, i) => 2 * i + 1),
        reads,
      );
      const store = new EmulatorStore({ version: 1, next_webhook_id: 1, webhooks: [], deliveries: {}, repos: { 'a/b': { issues: existing, secrets: [] } } });
      const incoming = Array.from({ length: 2000 }, (_, i) => issue(i < 1000 ? 8 * i + 1 : 2 * i)); // half replace, half are new
      reads.n = 0;
      assert.deepEqual(store.importIssues('a/b', incoming), { replaced: 1000 });
      // A scan per imported issue (the old findIndex) reads about 2,000 × 4,000 / 2 = 4,000,000 times.
      assert.ok(reads.n <= 4 * existing.length, `${reads.n} reads of stored issue numbers`);
      const numbers = store.issuesOf('a/b').map((i) => i.number);
      assert.equal(numbers.length, 4000 + 1000);
      assert.ok(
        numbers.every((n, i) => i === 0 || numbers[i - 1]! < n),
        'sorted, no duplicates',
      );
    });
  });
});
