// Pins the editor's connection state machine: every phase × event goes where TRANSITIONS says,
// events a phase does not take are refused or ignored and change nothing, and what the views show.
import { strict as assert } from 'node:assert';
import {
  ConnectionMachine,
  INITIAL,
  shownDetail,
  shownState,
  step,
  TRANSITIONS,
  type ConnectionChange,
  type ConnectionEvent,
  type ConnectionEventType,
  type ConnectionPhase,
  type ConnectionWhere,
} from '../../../../src/core/connection/machine';
import { parseRelayAddress, type RelayAddress } from '../../../../src/core/tree';

const address = parseRelayAddress('https://relay.example.com') as RelayAddress;
const remote: ConnectionWhere = { kind: 'remote', address };
const local: ConnectionWhere = { kind: 'local', port: 8788 };

/** One event of each type. */
const EVENTS: Record<ConnectionEventType, ConnectionEvent> = {
  start: { type: 'start' },
  connect: { type: 'connect', where: remote },
  opened: { type: 'opened', where: remote, forwarding: true },
  lost: { type: 'lost', detail: 'Reconnecting to relay.example.com: socket hang up' },
  resumed: { type: 'resumed' },
  refused: { type: 'refused', detail: 'relay.example.com refused the token (HTTP 401)', label: 'relay.example.com', status: 401 },
  forwardProblem: { type: 'forwardProblem', problem: 'the app does not answer' },
  leaseLost: { type: 'leaseLost', detail: 'Another VS Code window forwards these deliveries now.' },
  fail: { type: 'fail', detail: 'Relay exited with code 1.' },
  close: { type: 'close', offline: true, detail: 'Not connected to relay.example.com.', where: remote },
};

/** Where each allowed phase × event goes: the expected next phase, written out apart from the table. */
const EXPECTED: Record<ConnectionPhase, Partial<Record<ConnectionEventType, ConnectionPhase>>> = {
  off: { start: 'starting', connect: 'connecting', refused: 'failed', fail: 'failed', close: 'off' },
  starting: { connect: 'connecting', fail: 'failed', close: 'off' },
  connecting: { opened: 'connected', refused: 'failed', fail: 'failed', close: 'off' },
  connected: {
    connect: 'connecting',
    opened: 'connected',
    lost: 'reconnecting',
    refused: 'failed',
    forwardProblem: 'connected',
    leaseLost: 'off',
    fail: 'failed',
    close: 'off',
  },
  reconnecting: {
    connect: 'connecting',
    opened: 'connected',
    lost: 'reconnecting',
    resumed: 'connected',
    refused: 'failed',
    forwardProblem: 'reconnecting',
    leaseLost: 'off',
    fail: 'failed',
    close: 'off',
  },
  failed: { start: 'starting', connect: 'connecting', refused: 'failed', fail: 'failed', close: 'off' },
};

/** Events a phase refuses (a caller's bug); every other event it does not take is ignored (a late message). */
const REFUSED: Record<ConnectionPhase, ConnectionEventType[]> = {
  off: ['opened'],
  starting: ['start', 'opened'],
  connecting: ['start', 'connect'],
  connected: ['start'],
  reconnecting: ['start'],
  failed: ['opened'],
};

/** A machine in `phase`, reached through events as the editor reaches it; `refusals` collects what it refuses. */
function inPhase(phase: ConnectionPhase, refusals: string[]): ConnectionMachine {
  const path: Record<ConnectionPhase, ConnectionEvent[]> = {
    off: [],
    starting: [EVENTS.start],
    connecting: [EVENTS.connect],
    connected: [EVENTS.connect, EVENTS.opened],
    reconnecting: [EVENTS.connect, EVENTS.opened, EVENTS.lost],
    failed: [EVENTS.fail],
  };
  const m = new ConnectionMachine((p, e) => refusals.push(`${p}:${e.type}`));
  for (const e of path[phase]) assert.ok(m.dispatch(e), `${e.type} from ${m.snapshot.phase}`);
  assert.equal(m.snapshot.phase, phase);
  return m;
}

const PHASES = Object.keys(TRANSITIONS) as ConnectionPhase[];

describe('connection state machine', () => {
  it('has a row for every phase × event', () => {
    assert.deepEqual(PHASES.sort(), ['connected', 'connecting', 'failed', 'off', 'reconnecting', 'starting']);
    for (const phase of PHASES) assert.deepEqual(Object.keys(TRANSITIONS[phase]).sort(), Object.keys(EVENTS).sort(), phase);
  });

  for (const phase of ['off', 'starting', 'connecting', 'connected', 'reconnecting', 'failed'] as ConnectionPhase[]) {
    for (const type of Object.keys(EVENTS) as ConnectionEventType[]) {
      const to = EXPECTED[phase][type];
      const refused = REFUSED[phase].includes(type);
      it(`${phase} × ${type} → ${to ?? (refused ? 'refused' : 'ignored')}`, () => {
        const refusals: string[] = [];
        const m = inPhase(phase, refusals);
        const before = m.snapshot;
        let told: ConnectionChange | undefined;
        m.onDidChange((c) => (told = c));
        const taken = m.dispatch(EVENTS[type]);
        assert.equal(step(before, EVENTS[type]).ok, taken, 'dispatch is one step through the table');
        if (to) {
          assert.ok(taken, `${type} is taken in ${phase}`);
          assert.equal(m.snapshot.phase, to);
          assert.deepEqual(told && [told.event, told.before, told.after], [EVENTS[type], before, m.snapshot]);
          assert.deepEqual(refusals, []);
        } else {
          assert.equal(taken, false);
          assert.equal(m.snapshot, before, 'nothing changes');
          assert.equal(told, undefined, 'nobody is told');
          assert.deepEqual(refusals, refused ? [`${phase}:${type}`] : []);
        }
      });
    }
  }

  it('keeps where it points, the lease and the sentences on the way', () => {
    const m = new ConnectionMachine();
    const seen: ConnectionChange[] = [];
    m.onDidChange((c) => seen.push(c));
    m.dispatch({ type: 'connect', where: local });
    assert.deepEqual(m.snapshot.where, local);
    assert.equal(shownState(m.snapshot), 'connecting');
    m.dispatch({ type: 'opened', where: local, forwarding: true });
    assert.equal(m.snapshot.forwarding, true);
    assert.equal(shownState(m.snapshot), 'running');
    m.dispatch({ type: 'forwardProblem', problem: 'the app at :3000 is unreachable' });
    assert.equal(shownDetail(m.snapshot), 'the app at :3000 is unreachable');
    m.dispatch(EVENTS.lost);
    assert.equal(shownState(m.snapshot), 'connecting');
    assert.equal(shownDetail(m.snapshot), 'Reconnecting to relay.example.com: socket hang up', 'the reconnect says why before forwarding does');
    m.dispatch({ type: 'resumed' });
    assert.equal(shownDetail(m.snapshot), 'the app at :3000 is unreachable');
    // A local relay is forgotten when it goes; a remote one stays named ("Not connected to …").
    m.dispatch({ type: 'fail', detail: 'Relay exited with code 1.' });
    assert.deepEqual([m.snapshot.phase, m.snapshot.where, m.snapshot.forwarding, m.snapshot.forwardProblem], ['failed', undefined, false, undefined]);
    assert.equal(shownState(m.snapshot), 'failed');
    m.dispatch({ type: 'connect', where: remote });
    m.dispatch({ type: 'opened', where: remote, forwarding: false });
    m.dispatch({ type: 'leaseLost', detail: 'Another VS Code window forwards these deliveries now.' });
    assert.deepEqual(m.snapshot.where, remote);
    assert.equal(shownState(m.snapshot), 'offline');
    m.dispatch({ type: 'close' });
    assert.equal(shownState(m.snapshot), 'stopped');
    assert.deepEqual(
      seen.map((c) => `${c.before.phase}→${c.after.phase}`),
      [
        'off→connecting',
        'connecting→connected',
        'connected→connected',
        'connected→reconnecting',
        'reconnecting→connected',
        'connected→failed',
        'failed→connecting',
        'connecting→connected',
        'connected→off',
        'off→off',
      ],
    );
  });

  it('reports a refused event, stays put and tells no subscriber', () => {
    const refusals: string[] = [];
    const m = new ConnectionMachine((phase, e) => refusals.push(`${phase}:${e.type}`));
    let told = 0;
    m.onDidChange(() => told++);
    assert.equal(m.dispatch({ type: 'opened', where: local, forwarding: false }), false);
    assert.equal(m.dispatch({ type: 'lost', detail: 'late' }), false, 'ignored');
    assert.deepEqual(refusals, ['off:opened']);
    assert.equal(told, 0);
    assert.equal(m.snapshot, INITIAL);
  });
});
