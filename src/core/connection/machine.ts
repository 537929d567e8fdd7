// The editor's connection to a relay as one state machine: which phase it is in, where it points
// (a local relay on a port, or a remote relay), whether this window holds forwarding (the lease)
// and the sentence the views show. Every transition is a row of TRANSITIONS; an event a phase has
// no row for is refused (the caller's bug: `refuse`) or ignored (a late message: `ignore`).
// Pure: the editor's RelayManager dispatches; the Relay view, the status bar, the command context
// keys and Connect to Relay…'s refusal notice subscribe to the changes it publishes.
import type { RelayAddress } from '../tree/relayAddress';
import type { RelayState } from '../tree/relayModel';

export type ConnectionPhase = 'off' | 'starting' | 'connecting' | 'connected' | 'reconnecting' | 'failed';

/** Where the connection points: the local relay on a port, or a remote relay (its label and base URL). */
export type ConnectionWhere = { kind: 'local'; port: number } | { kind: 'remote'; address: RelayAddress };

export type ConnectionEvent =
  /** Start Relay spawns the relay process. */
  | { type: 'start' }
  /** A connection starts to open while none is in use. */
  | { type: 'connect'; where: ConnectionWhere }
  /** A connection opened (subscribed) and is now the one in use; `forwarding`: this window took the lease. */
  | { type: 'opened'; where: ConnectionWhere; forwarding: boolean }
  /** The subscription dropped and retries. */
  | { type: 'lost'; detail: string }
  /** The subscription is open again after `lost`. */
  | { type: 'resumed' }
  /** The relay refused the token (HTTP 401/403): retrying cannot help. */
  | { type: 'refused'; detail: string; label: string; status: number; where?: ConnectionWhere }
  /** Forwarding to the local app fails (retrying), or works again (`problem` undefined). */
  | { type: 'forwardProblem'; problem: string | undefined }
  /** Another window took forwarding over: this one lets its connection go. */
  | { type: 'leaseLost'; detail: string; where?: ConnectionWhere }
  /** Start Relay, an open or the relay process failed. */
  | { type: 'fail'; detail: string; where?: ConnectionWhere }
  /** The connection is closed: stopped on purpose, or `offline` (nothing answers, not connected yet). */
  | { type: 'close'; offline?: boolean; detail?: string; where?: ConnectionWhere };

export type ConnectionEventType = ConnectionEvent['type'];

export interface ConnectionSnapshot {
  readonly phase: ConnectionPhase;
  /** Off: nothing was asked to run (`stopped`), or it could not be reached (`offline`). */
  readonly offline: boolean;
  /** Where it points; kept while off or failed for a remote relay ("Not connected to relay.example.com"). */
  readonly where: ConnectionWhere | undefined;
  /** This window forwards the deliveries of the connection in use (it holds the forwarding lease). */
  readonly forwarding: boolean;
  /** The phase's sentence (why it failed, what it retries). */
  readonly detail: string | undefined;
  /** Forwarding to the local app is failing: why. */
  readonly forwardProblem: string | undefined;
}

export const INITIAL: ConnectionSnapshot = { phase: 'off', offline: false, where: undefined, forwarding: false, detail: undefined, forwardProblem: undefined };

type Step = (s: ConnectionSnapshot, e: never) => ConnectionSnapshot;
/** A row: the next snapshot, or what happens to an event the phase does not take. */
export type Transition = Step | 'refuse' | 'ignore';

const off = (offline: boolean, detail: string | undefined, where: ConnectionWhere | undefined): ConnectionSnapshot => ({
  ...INITIAL,
  offline,
  detail,
  where: where?.kind === 'remote' ? where : undefined,
});

const start: Step = () => ({ ...INITIAL, phase: 'starting' });
const connect = (_: ConnectionSnapshot, e: Extract<ConnectionEvent, { type: 'connect' }>): ConnectionSnapshot => ({
  ...INITIAL,
  phase: 'connecting',
  where: e.where,
});
const opened = (_: ConnectionSnapshot, e: Extract<ConnectionEvent, { type: 'opened' }>): ConnectionSnapshot => ({
  ...INITIAL,
  phase: 'connected',
  where: e.where,
  forwarding: e.forwarding,
});
const lost = (s: ConnectionSnapshot, e: Extract<ConnectionEvent, { type: 'lost' }>): ConnectionSnapshot => ({ ...s, phase: 'reconnecting', detail: e.detail });
const resumed: Step = (s) => ({ ...s, phase: 'connected', detail: undefined });
const failed = (s: ConnectionSnapshot, e: { detail: string; where?: ConnectionWhere }): ConnectionSnapshot => ({
  ...off(false, e.detail, e.where ?? s.where),
  phase: 'failed',
});
const forwardProblem = (s: ConnectionSnapshot, e: Extract<ConnectionEvent, { type: 'forwardProblem' }>): ConnectionSnapshot => ({
  ...s,
  forwardProblem: e.problem,
});
const leaseLost = (s: ConnectionSnapshot, e: Extract<ConnectionEvent, { type: 'leaseLost' }>): ConnectionSnapshot => off(true, e.detail, e.where ?? s.where);
const close = (_: ConnectionSnapshot, e: Extract<ConnectionEvent, { type: 'close' }>): ConnectionSnapshot => off(e.offline ?? false, e.detail, e.where);

/**
 * The one table: phase × event. A connection replacing the one in use either closes it first
 * (`connect` from connected: it forwarded, and two must never forward at once) or opens beside it
 * (`opened` from connected: the old one stays in use until the new one opens).
 */
export const TRANSITIONS: Record<ConnectionPhase, Record<ConnectionEventType, Transition>> = {
  off: {
    start,
    connect,
    opened: 'refuse',
    lost: 'ignore',
    resumed: 'ignore',
    refused: failed,
    forwardProblem: 'ignore',
    leaseLost: 'ignore',
    fail: failed,
    close,
  },
  starting: {
    start: 'refuse',
    connect,
    opened: 'refuse',
    lost: 'ignore',
    resumed: 'ignore',
    refused: 'ignore',
    forwardProblem: 'ignore',
    leaseLost: 'ignore',
    fail: failed,
    close,
  },
  connecting: {
    start: 'refuse',
    connect: 'refuse',
    opened,
    lost: 'ignore',
    resumed: 'ignore',
    refused: failed,
    forwardProblem: 'ignore',
    leaseLost: 'ignore',
    fail: failed,
    close,
  },
  connected: {
    start: 'refuse',
    connect,
    opened,
    lost,
    resumed: 'ignore',
    refused: failed,
    forwardProblem,
    leaseLost,
    fail: failed,
    close,
  },
  reconnecting: {
    start: 'refuse',
    connect,
    opened,
    lost,
    resumed,
    refused: failed,
    forwardProblem,
    leaseLost,
    fail: failed,
    close,
  },
  failed: {
    start,
    connect,
    opened: 'refuse',
    lost: 'ignore',
    resumed: 'ignore',
    refused: failed,
    forwardProblem: 'ignore',
    leaseLost: 'ignore',
    fail: failed,
    close,
  },
};

export type StepResult = { ok: true; next: ConnectionSnapshot } | { ok: false; outcome: 'refuse' | 'ignore' };

/** One event through the table. */
export function step(s: ConnectionSnapshot, e: ConnectionEvent): StepResult {
  const t = TRANSITIONS[s.phase][e.type];
  if (t === 'refuse' || t === 'ignore') return { ok: false, outcome: t };
  return { ok: true, next: (t as (s: ConnectionSnapshot, e: ConnectionEvent) => ConnectionSnapshot)(s, e) };
}

/** The state the Relay view and the status bar show (relayModel.ts, relayStatusBar.ts). */
export function shownState(s: ConnectionSnapshot): RelayState {
  switch (s.phase) {
    case 'off':
      return s.offline ? 'offline' : 'stopped';
    case 'starting':
      return 'starting';
    case 'connecting':
    case 'reconnecting':
      return 'connecting';
    case 'connected':
      return 'running';
    case 'failed':
      return 'failed';
  }
}

/** The sentence shown with the state: what is retried, else why forwarding fails, else why it stopped. */
export function shownDetail(s: ConnectionSnapshot): string | undefined {
  return s.phase === 'reconnecting' ? (s.detail ?? s.forwardProblem) : (s.forwardProblem ?? s.detail);
}

/** What a subscriber is told: the event and the snapshots around it. */
export interface ConnectionChange {
  readonly event: ConnectionEvent;
  readonly before: ConnectionSnapshot;
  readonly after: ConnectionSnapshot;
}

/** The one owner of the snapshot: events go in through dispatch, subscribers hear each change. */
export class ConnectionMachine {
  private current: ConnectionSnapshot = INITIAL;
  private readonly listeners = new Set<(c: ConnectionChange) => void>();

  constructor(private readonly onRefused: (phase: ConnectionPhase, e: ConnectionEvent) => void = () => undefined) {}

  get snapshot(): ConnectionSnapshot {
    return this.current;
  }

  /** Applies `e`; false when the table refuses or ignores it in this phase (a refusal is reported). */
  dispatch(e: ConnectionEvent): boolean {
    const before = this.current;
    const r = step(before, e);
    if (!r.ok) {
      if (r.outcome === 'refuse') this.onRefused(before.phase, e);
      return false;
    }
    this.current = r.next;
    for (const l of [...this.listeners]) l({ event: e, before, after: r.next });
    return true;
  }

  onDidChange(listener: (c: ConnectionChange) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }
}
