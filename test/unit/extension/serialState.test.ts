// globalState one write at a time (src/extension/storage/serialState.ts). VS Code's Memento loses an update
// when the echo of an earlier write (another key's) reaches the extension host between that update
// and its flush: Stop Forwarding removed its set-up while the resume point of the last delivery was
// being written, and Disconnect from Relay then still found the set-up (the in-editor relayTls test
// failed 2 runs in 6). Driven step by step on a model of VS Code's Memento (workbenchMemento.ts).
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type * as vscode from 'vscode';
import { seqKey, type ForwardSession } from '../../../src/core/tree';
import { RELAY_STORAGE } from '../../../src/extension/ids';
import { ForwardSetups } from '../../../src/extension/relay/setups';
import { SerialState } from '../../../src/extension/storage/serialState';
import { Workbench } from './workbenchMemento';

const RELAY = 'https://relay.example.test';
const SESSION: ForwardSession = {
  relay: RELAY,
  channel: 'acme-widgets-1a2b3c',
  ingressUrl: `${RELAY}/hooks/acme-widgets-1a2b3c`,
  repo: 'acme/widgets',
  webhookId: '7',
  to: 'http://localhost:3000/hook',
};
const NO_SECRETS = {} as vscode.SecretStorage; // put/remove never touch the channel secrets

const SAVED = { seq: seqKey(RELAY), retrying: `${seqKey(RELAY)}#retrying` };

/**
 * The two orders in which Stop Forwarding's removal met the forwarder's cursor save (the resume
 * point, then the retrying set, one after the other, as EditorForwarder saves them) and was lost.
 */
const ORDERS = {
  'the echo of the resume point arrives between the removal and its flush': async (w: Workbench, remove: () => void) => {
    await w.runTimers(); // the resume point is sent
    await w.handle(); // stored; its echo and reply are on their way back
    remove();
    await w.deliverOne(); // the echo replaces the whole state: the removal is gone before it was sent
  },
  'the removal is sent, then the echo of the resume point comes back and the retrying set is sent with the old state': async (
    w: Workbench,
    remove: () => void,
  ) => {
    await w.runTimers(); // the resume point is sent
    remove();
    await w.runTimers(); // the removal is sent
    await w.handle(); // both stored; echoes and replies on their way back
    await w.deliverOne(); // the resume point's echo: the state before the removal
    await w.deliverOne(); // its reply: the forwarder saves the retrying set on that state
    await w.runTimers(); // … and sends it, the set-up with it
  },
};

async function stopWhileTheCursorIsSaved(order: keyof typeof ORDERS, state: (m: vscode.Memento) => vscode.Memento) {
  const workbench = new Workbench();
  const memento = state(workbench.memento());
  const setups = new ForwardSetups(memento, NO_SECRETS);
  const put = setups.put(SESSION);
  await workbench.settle();
  await put;

  const save = (async () => {
    await memento.update(SAVED.seq, 42); // the forwarder acked #42
    await memento.update(SAVED.retrying, []);
  })();
  let removed: Promise<ForwardSession | undefined> = Promise.resolve(undefined);
  await ORDERS[order](workbench, () => (removed = setups.remove(RELAY, SESSION.channel))); // Stop Forwarding
  await workbench.settle();
  await save;
  return { workbench, setups, memento, ended: await removed };
}

describe('globalState one write at a time (SerialState)', () => {
  for (const order of Object.keys(ORDERS) as (keyof typeof ORDERS)[]) {
    describe(order, () => {
      it('VS Code itself (the model without SerialState) brings the removed set-up back: the order is a harmful one', async () => {
        const { workbench } = await stopWhileTheCursorIsSaved(order, (m) => m);
        assert.equal((workbench.stored[RELAY_STORAGE.sessions] as ForwardSession[]).length, 1, 'the next activation finds it again');
      });

      it('through SerialState the set-up stays removed, in memory and as stored; the resume point and the retrying set are kept', async () => {
        const { workbench, setups, memento, ended } = await stopWhileTheCursorIsSaved(order, (m) => new SerialState(m));
        assert.equal(ended?.channel, SESSION.channel);
        assert.deepEqual(setups.of(RELAY), [], 'Disconnect from Relay finds no set-up');
        assert.deepEqual(workbench.stored[RELAY_STORAGE.sessions], [], 'the next activation finds none either');
        assert.equal(memento.get(SAVED.seq), 42);
        assert.deepEqual(workbench.stored[SAVED.seq], 42);
        assert.deepEqual(workbench.stored[SAVED.retrying], []);
      });
    });
  }

  it('reads see a queued value at once; updates of one key queued behind a write go out once, with the newest value', async () => {
    const workbench = new Workbench();
    const state = new SerialState(workbench.memento());
    const first = state.update('a', 1);
    const second = state.update('b', { n: 1 });
    const third = state.update('b', { n: 2 });
    const gone = state.update('c', undefined);
    assert.equal(state.get('a'), 1);
    assert.deepEqual(state.get('b'), { n: 2 });
    assert.equal(state.get('c', 'default'), 'default');
    assert.deepEqual([...state.keys()].sort(), ['a', 'b']);
    await workbench.runTimers();
    await workbench.handle();
    assert.deepEqual(workbench.stored, { a: 1 }, 'one write out at a time: the first alone');
    await workbench.settle();
    await Promise.all([first, second, third, gone]);
    assert.deepEqual(workbench.stored, { a: 1, b: { n: 2 } });
  });

  it('a value given is copied: changing the object afterwards changes nothing stored', async () => {
    const workbench = new Workbench();
    const state = new SerialState(workbench.memento());
    const list = [SESSION];
    const written = state.update(RELAY_STORAGE.sessions, list);
    list.pop();
    await workbench.settle();
    await written;
    assert.equal((state.get<ForwardSession[]>(RELAY_STORAGE.sessions) ?? []).length, 1);
  });

  it("nothing in the extension writes VS Code's globalState but through the one SerialState activate.ts makes", () => {
    const root = join(__dirname, '..', '..', '..');
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((n) => {
        const p = join(dir, n);
        return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
      });
    const uses = files(join(root, 'src')).flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/^.*\b(?:context|extension|ctx\.extension)\.globalState\b.*$/gm)]
        .map((m) => m[0].trim())
        .filter((line) => !/^(\/\/|\/\*|\*)/.test(line)) // comments
        .map((line) => `${relative(root, f)}: ${line}`),
    );
    assert.deepEqual(uses, ['src/extension/activate.ts: const globalState = new SerialState(context.globalState);']);
  });
});
