// Events: the seven types, the validators on good and bad payloads, and the sample builders.
import { strict as assert } from 'node:assert';
import { EVENT_TYPES, isEventType, samplePayload, validatePayload, type EventType } from '../../../src/core/events';

const NOW = new Date(Date.UTC(2026, 10, 22, 20, 58, 10));
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests walk and edit sample payloads by path
type Obj = Record<string, any>;

function errorsOf(event: string, value: unknown): string[] {
  const r = validatePayload(event, value);
  return r.ok ? [] : r.errors;
}

describe('events', () => {
  it('lists the seven event types of spec §6', () => {
    assert.deepEqual([...EVENT_TYPES], ['push', 'pull_request', 'issue', 'comment', 'release', 'pipeline', 'agent']);
    for (const e of EVENT_TYPES) assert.ok(isEventType(e));
    for (const x of ['ping', 'Push', '', 'issues', 7, null, undefined, ['push']]) assert.equal(isEventType(x), false, String(x));
  });

  describe('samplePayload', () => {
    for (const event of [...EVENT_TYPES, 'ping'] as const) {
      it(`${event}: passes its own validator, names the event and the repository`, () => {
        const p = samplePayload(event, { owner: 'o', repo: 'r', baseUrl: 'http://svc.test/', now: NOW, webhookId: '9' });
        assert.deepEqual(validatePayload(event, p), { ok: true, payload: p });
        assert.equal(p.event, event);
        assert.deepEqual(p.repository, { name: 'r', full_name: 'o/r', url: 'http://svc.test/o/r' });
        assert.deepEqual(p.sender, { login: 'octo-dev', type: 'User' });
        assert.doesNotThrow(() => JSON.parse(JSON.stringify(p)));
      });
    }

    it('push has 40-hex before/after and commits with authors', () => {
      const p = samplePayload('push', { now: NOW }) as Obj;
      assert.match(p.before, /^[0-9a-f]{40}$/);
      assert.match(p.after, /^[0-9a-f]{40}$/);
      assert.notEqual(p.before, p.after);
      assert.equal(p.ref, 'refs/heads/main');
      assert.ok(p.commits.length >= 1);
      for (const c of p.commits) {
        assert.match(c.id, /^[0-9a-f]{40}$/);
        assert.equal(typeof c.author.email, 'string');
      }
      assert.equal(p.commits[p.commits.length - 1].id, p.after, 'the last commit is the new head');
    });

    it('is deterministic for a given clock and differs for another', () => {
      assert.deepEqual(samplePayload('push', { now: NOW }), samplePayload('push', { now: NOW }));
      assert.notDeepEqual(samplePayload('push', { now: NOW }), samplePayload('push', { now: new Date(NOW.getTime() + 1000) }));
    });

    it('pull_request: opened by default; closed carries merged', () => {
      const opened = samplePayload('pull_request', { now: NOW }) as Obj;
      assert.equal(opened.action, 'opened');
      assert.equal(opened.pull_request.state, 'open');
      assert.equal('merged' in opened.pull_request, false);
      const closed = samplePayload('pull_request', { action: 'closed', merged: false, now: NOW }) as Obj;
      assert.equal(closed.action, 'closed');
      assert.equal(closed.pull_request.merged, false);
      assert.equal((samplePayload('pull_request', { action: 'closed' }) as Obj).pull_request.merged, true, 'merged by default');
      assert.ok(validatePayload('pull_request', closed).ok);
    });

    it('ping names the webhook', () => {
      assert.equal(samplePayload('ping', { webhookId: '42' }).hook_id, '42');
    });
  });

  describe('validatePayload', () => {
    const push = () => clone(samplePayload('push', { now: NOW })) as Obj;
    const pr = () => clone(samplePayload('pull_request', { now: NOW })) as Obj;

    it('names the exact path of a bad nested value', () => {
      const p = pr();
      p.pull_request.head.sha = 42;
      assert.deepEqual(errorsOf('pull_request', p), ['pull_request.head.sha: expected string']);
      const q = push();
      q.commits = [q.commits[0], q.commits[1], { id: 'abc', message: 'm', author: { name: 'n' } }];
      assert.deepEqual(errorsOf('push', q), ['commits[2].author.email: expected string']);
    });

    it('reports every problem, not only the first', () => {
      const p = push();
      delete p.ref;
      p.sender = 'me';
      p.repository.full_name = null;
      p.event = 'pull_request';
      assert.deepEqual(errorsOf('push', p).sort(), [
        'event: expected "push"',
        'ref: expected string',
        'repository.full_name: expected string',
        'sender: expected object',
      ]);
    });

    it('push: commits must be an array of objects', () => {
      const p = push();
      p.commits = {};
      assert.deepEqual(errorsOf('push', p), ['commits: expected array']);
      p.commits = [null];
      assert.deepEqual(errorsOf('push', p), ['commits[0]: expected object']);
      p.commits = [];
      assert.deepEqual(errorsOf('push', p), [], 'an empty push (e.g. a branch deletion) is valid');
    });

    it('pull_request: number is an integer; closed needs a boolean merged', () => {
      const p = pr();
      p.number = 4.5;
      assert.deepEqual(errorsOf('pull_request', p), ['number: expected integer']);
      const c = pr();
      c.action = 'closed';
      assert.deepEqual(errorsOf('pull_request', c), ['pull_request.merged: expected boolean']);
      c.pull_request.merged = 'yes';
      assert.deepEqual(errorsOf('pull_request', c), ['pull_request.merged: expected boolean']);
      c.pull_request.merged = true;
      assert.deepEqual(errorsOf('pull_request', c), []);
      const other = pr();
      other.action = 'synchronize';
      assert.deepEqual(errorsOf('pull_request', other), [], 'other actions are allowed: the list is not shown');
      delete other.pull_request.base;
      assert.deepEqual(errorsOf('pull_request', other), ['pull_request.base: expected object']);
    });

    it('issue: needs issue.number, title and state; other fields are free', () => {
      assert.deepEqual(errorsOf('issue', { event: 'issue', issue: { number: 1, title: 't', state: 'open', extra: [1] }, anything: true }), []);
      assert.deepEqual(errorsOf('issue', { event: 'issue', issue: { number: '1', title: 't' } }), [
        'issue.number: expected integer',
        'issue.state: expected string',
      ]);
      assert.deepEqual(errorsOf('issue', { event: 'issue' }), ['issue: expected object']);
      assert.deepEqual(errorsOf('issue', { event: 'issue', issue: { number: 1, title: 't', state: 'open' }, repository: { name: 1 } }), [
        'repository.name: expected string',
        'repository.full_name: expected string',
        'repository.url: expected string',
      ]);
    });

    it('other events accept any JSON object and reject non-objects', () => {
      for (const e of ['comment', 'release', 'pipeline', 'agent', 'ping'] as const) {
        assert.deepEqual(validatePayload(e, {}), { ok: true, payload: {} });
        assert.deepEqual(validatePayload(e, { whatever: [1, 2] }).ok, true);
        for (const bad of [null, [], 'x', 3, true]) assert.deepEqual(errorsOf(e, bad), ['(root): expected object'], `${e} ${JSON.stringify(bad)}`);
      }
      for (const e of ['push', 'pull_request', 'issue'] as EventType[]) assert.deepEqual(errorsOf(e, []), ['(root): expected object']);
    });

    it('an unknown event name is an error', () => {
      assert.deepEqual(errorsOf('deploy', {}), ["event: unknown event type 'deploy'"]);
    });
  });
});
