// Where `service-hooks forward` keeps its resume point and the deliveries it is still retrying,
// one 0600 JSON file per relay and channel, so a restart without --since misses nothing and
// sends nothing twice:
//   $XDG_STATE_HOME/service-hooks/forward/<host>_<port>-<channel|all>-<hash>.json
//   (~/.local/state/… when XDG_STATE_HOME is unset; --state FILE overrides)
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { writeFileAtomic, writeFileAtomicSync } from '../../src/core/writeFileAtomic';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { CursorStore, ForwardCursor, RetryingDelivery } from '../client/forwardEngine';

export function defaultStateFile(env: NodeJS.ProcessEnv, relayUrl: string, channel: string | undefined): string {
  const base = env.XDG_STATE_HOME && env.XDG_STATE_HOME.startsWith('/') ? env.XDG_STATE_HOME : join(env.HOME || homedir(), '.local', 'state');
  const u = new URL(relayUrl);
  const path = u.pathname.replace(/\/ws\/?$|\/$/, ''); // ws://h:p, ws://h:p/ and ws://h:p/ws are one relay
  const id = createHash('sha256')
    .update(`${u.protocol}//${u.host}${path}\n${channel ?? ''}`)
    .digest('hex')
    .slice(0, 12);
  const name = `${u.hostname.replace(/[^A-Za-z0-9.-]/g, '_')}_${u.port || (u.protocol === 'wss:' ? 443 : 80)}-${channel ?? 'all'}-${id}.json`;
  return join(base, 'service-hooks', 'forward', name);
}

export class StateFileError extends Error {
  override name = 'StateFileError';
}

function isRetrying(x: unknown): x is RetryingDelivery {
  const r = x as RetryingDelivery;
  return (
    typeof r === 'object' && r !== null && Number.isInteger(r.seq) && typeof r.channel === 'string' && Number.isInteger(r.attempts) && Number.isFinite(r.nextAt)
  );
}

/** Reads a state file (undefined when there is none); a damaged one is a StateFileError naming it. */
export function readStateFile(file: string): ForwardCursor | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StateFileError(`cannot read the forward state ${file}: ${(err as Error).message}`);
  }
  let c: ForwardCursor;
  try {
    c = JSON.parse(text) as ForwardCursor;
  } catch {
    throw new StateFileError(`the forward state ${file} is damaged (not JSON): delete it, or pass --since SEQ`);
  }
  if (
    typeof c !== 'object' ||
    c === null ||
    (c.lastSeq !== undefined && !Number.isInteger(c.lastSeq)) ||
    !Array.isArray(c.retrying) ||
    !c.retrying.every(isRetrying)
  ) {
    throw new StateFileError(`the forward state ${file} is damaged (unexpected content): delete it, or pass --since SEQ`);
  }
  return c;
}

/** Written atomically (writeFileAtomicSync, 0600): a crash leaves the old cursor or the new one. */
export function writeStateFile(file: string, cursor: ForwardCursor): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileAtomicSync(file, JSON.stringify(cursor) + '\n', { mode: 0o600 });
}

/**
 * The forward command's cursor: written with the asynchronous writeFileAtomic (its fsyncs run in
 * the thread pool, so deliveries go on meanwhile; the engine folds the asks made during one write
 * into the next).
 */
export function stateFileCursor(file: string, cwd: string): { path: string; store: CursorStore } {
  const path = resolve(cwd, file);
  const save = async (c: ForwardCursor): Promise<void> => {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    await writeFileAtomic(path, JSON.stringify(c) + '\n', { mode: 0o600 });
  };
  return { path, store: { load: () => readStateFile(path), save } };
}
