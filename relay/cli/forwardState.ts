// Where `service-hooks forward` keeps its resume point and the deliveries it is still retrying,
// one 0600 JSON file per relay identity and what the token reads (its scope), both from the
// relay's hello, so a restart without --since misses nothing and sends nothing twice, whichever
// instance of the relay (or load balancer in front of them) it connects to:
//   $XDG_STATE_HOME/service-hooks/forward/relay-<hash of the identity>-<channel|all>-<hash>.json
//   (~/.local/state/… when XDG_STATE_HOME is unset; --state FILE overrides)
// The file records its scope and the relay's identity, and one written for another scope or
// relay is refused: two forwarders with different channel tokens once shared a file named after
// the relay and --channel only, and a restarted one resumed at the other's seq, skipping what had
// arrived for it meanwhile. Files of older versions were named after the relay's address
// (<host>_<port>-…): the one of the address connected to is taken over (its relay names the
// identity now); one of another --relay address is refused until --since or --relay says which.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, unlinkSync } from 'node:fs';
import { writeFileAtomic, writeFileAtomicSync } from '../../src/core/writeFileAtomic';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { TokenScope } from '../../src/core/relay/protocol';
import type { CursorStore, ForwardCursor, RetryingDelivery } from '../client/forwardEngine';

/** A state file's content: the cursor, the scope it follows and the relay's identity (files of older versions: none). */
export type StateFileContent = ForwardCursor & { scope?: string; relay?: string };

function stateDir(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_STATE_HOME && env.XDG_STATE_HOME.startsWith('/') ? env.XDG_STATE_HOME : join(env.HOME || homedir(), '.local', 'state');
  return join(base, 'service-hooks', 'forward');
}

/** The file named after `key`: `<host>_<port>-<label>-<hash of the relay and key>.json`. */
function stateFileName(relayUrl: string, label: string, key: string): string {
  const u = new URL(relayUrl);
  const path = u.pathname.replace(/\/ws\/?$|\/$/, ''); // ws://h:p, ws://h:p/ and ws://h:p/ws are one relay
  const id = createHash('sha256').update(`${u.protocol}//${u.host}${path}\n${key}`).digest('hex').slice(0, 12);
  // The label comes from --channel or the relay's hello: never a path of its own.
  return `${u.hostname.replace(/[^A-Za-z0-9.-]/g, '_')}_${u.port || (u.protocol === 'wss:' ? 443 : 80)}-${label.replace(/[^A-Za-z0-9._-]/g, '_')}-${id}.json`;
}

/**
 * The file of older versions (and of a relay too old to name the token's scope): per relay and
 * --channel only, so two tokens without --channel shared it.
 */
export function defaultStateFile(env: NodeJS.ProcessEnv, relayUrl: string, channel: string | undefined): string {
  return join(stateDir(env), stateFileName(relayUrl, channel ?? 'all', channel ?? ''));
}

/** What a forwarder follows, as its state file records it: `admin`, `admin, channel dev`, `channel dev@<generation>`. */
export function scopeName(scope: TokenScope, channel: string | undefined): string {
  if (scope.kind === 'admin') return channel === undefined ? 'admin' : `admin, channel ${channel}`;
  return `channel ${scope.channel}${scope.generation ? `@${scope.generation}` : ''}`;
}

/** The default state file of a forwarder whose token reads `scope` (with --channel `channel`). */
export function scopedStateFile(env: NodeJS.ProcessEnv, relayUrl: string, scope: TokenScope, channel: string | undefined): string {
  const label = scope.kind === 'channel' ? scope.channel : (channel ?? 'all');
  return join(stateDir(env), stateFileName(relayUrl, label, `scope ${scopeName(scope, channel)}`));
}

/** The default state file of a forwarder of relay `identity` (HelloMessage.relay) whose token reads `scope` (with --channel `channel`). */
export function relayStateFile(env: NodeJS.ProcessEnv, identity: string, scope: TokenScope, channel: string | undefined): string {
  const label = (scope.kind === 'channel' ? scope.channel : (channel ?? 'all')).replace(/[^A-Za-z0-9._-]/g, '_');
  const hash = (text: string, n: number) => createHash('sha256').update(text).digest('hex').slice(0, n);
  return join(stateDir(env), `relay-${hash(identity, 8)}-${label}-${hash(`${identity}\nscope ${scopeName(scope, channel)}`, 12)}.json`);
}

export class StateFileError extends Error {
  override name = 'StateFileError';
}

const isSeq = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0;

function isRetrying(x: unknown): x is RetryingDelivery {
  const r = x as RetryingDelivery;
  return typeof r === 'object' && r !== null && isSeq(r.seq) && typeof r.channel === 'string' && Number.isSafeInteger(r.attempts) && Number.isFinite(r.nextAt);
}

/** Reads a state file (undefined when there is none); a damaged one is a StateFileError naming it. */
export function readStateFile(file: string): StateFileContent | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StateFileError(`cannot read the forward state ${file}: ${(err as Error).message}`);
  }
  let c: StateFileContent;
  try {
    c = JSON.parse(text) as StateFileContent;
  } catch {
    throw new StateFileError(`the forward state ${file} is damaged (not JSON): delete it, or pass --since SEQ`);
  }
  if (
    typeof c !== 'object' ||
    c === null ||
    (c.lastSeq !== undefined && !isSeq(c.lastSeq)) ||
    (c.scope !== undefined && typeof c.scope !== 'string') ||
    (c.relay !== undefined && typeof c.relay !== 'string') ||
    !Array.isArray(c.retrying) ||
    !c.retrying.every(isRetrying)
  ) {
    throw new StateFileError(`the forward state ${file} is damaged (unexpected content): delete it, or pass --since SEQ`);
  }
  return c;
}

/** Written atomically (writeFileAtomicSync, 0600): a crash leaves the old cursor or the new one. */
export function writeStateFile(file: string, content: StateFileContent): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileAtomicSync(file, JSON.stringify(content) + '\n', { mode: 0o600 });
}

export interface ForwardStateOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  relayUrl: string;
  /** --channel */
  channel?: string;
  /** --state */
  file?: string;
  /** What the token reads (the relay's hello); undefined: a relay too old to say. */
  scope?: TokenScope;
  /** --since: the file's resume point is not used. */
  since?: number;
  /** The relay's identity (its hello); undefined: a relay too old to say (the file is keyed by address). */
  relay?: string;
  /** The other --relay addresses (instances of the same relay): their older files are looked for too. */
  others?: readonly string[];
}

/** What forwardState found: the file, its cursor store, and the older file it took over, if any. */
export interface ForwardState {
  path: string;
  store: CursorStore;
  /** An older version's file for --channel C, taken over (it records no scope). */
  adopted?: string;
  /** An older version's file of the address connected to, moved to the relay identity's name (removed once that is written). */
  migrated?: string;
}

/**
 * The forward command's state file for the relay's identity and what its token reads, checked: one
 * written for another scope or relay is refused (a StateFileError naming it and the way out), and
 * so is one of an older version that records no scope (it may hold another token's resume point)
 * unless --since says where to start; but the default file an older version kept for --channel C
 * is taken over (`adopted`): whichever token wrote it read channel C's deliveries, as this one
 * does. Files of older versions were named after the relay's address: the one of the address
 * connected to is taken over (`migrated`: the relay there names its identity now); one of another
 * --relay address is refused without --since (whether its relay is this one is not known). A
 * relay too old to name its identity gets the address's file, and one too old to name the scope
 * the file of older versions, unchecked. The cursor is written with the asynchronous
 * writeFileAtomic (its fsyncs run in the thread pool, so deliveries go on meanwhile; the engine
 * folds the asks made during one write into the next).
 */
export function forwardState(o: ForwardStateOptions): ForwardState {
  const expected = o.scope && scopeName(o.scope, o.channel);
  const path =
    o.file !== undefined
      ? resolve(o.cwd, o.file)
      : o.scope && o.relay !== undefined
        ? relayStateFile(o.env, o.relay, o.scope, o.channel)
        : o.scope
          ? scopedStateFile(o.env, o.relayUrl, o.scope, o.channel)
          : defaultStateFile(o.env, o.relayUrl, o.channel);
  let from = path;
  let found = readStateFile(path);
  let adopted: string | undefined;
  let migrated: string | undefined;
  if (!found && o.file === undefined && o.scope && o.relay !== undefined) {
    // The file an older version kept for the address connected to, named by address and scope.
    from = scopedStateFile(o.env, o.relayUrl, o.scope, o.channel);
    found = readStateFile(from);
    if (found) migrated = from;
  }
  if (!found && o.file === undefined && o.scope) {
    // The file an older version kept for this relay and --channel: not ignored silently (a skip).
    from = defaultStateFile(o.env, o.relayUrl, o.channel);
    found = readStateFile(from);
    if (found && o.channel !== undefined && o.since === undefined) adopted = from;
    if (adopted && o.relay !== undefined) migrated = from;
  }
  if (!found && o.file === undefined && o.scope && o.relay !== undefined && o.since === undefined) refuseOthers(o);
  let cursor = found && expected !== undefined && !adopted ? checked(found, from, expected, o) : found;
  if (cursor?.relay !== undefined && o.relay !== undefined && cursor.relay !== o.relay) cursor = otherRelay(cursor, from, o);
  let old = migrated;
  const save = async (c: ForwardCursor): Promise<void> => {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const content: StateFileContent = { ...(expected === undefined ? {} : { scope: expected }), ...c, ...(o.relay === undefined ? {} : { relay: o.relay }) };
    await writeFileAtomic(path, JSON.stringify(content) + '\n', { mode: 0o600 });
    if (old) removeOld(old);
    old = undefined;
  };
  const load = () => cursor && { ...(cursor.lastSeq !== undefined ? { lastSeq: cursor.lastSeq } : {}), retrying: cursor.retrying };
  return { path, store: { load, save }, ...(adopted ? { adopted } : {}), ...(migrated ? { migrated } : {}) };
}

/** An older version's file, its content now in the relay identity's file: removed (gone already is fine). */
function removeOld(file: string): void {
  try {
    unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** Throws when an older version kept a file for another of the --relay addresses: its relay may be this one, or not. */
function refuseOthers(o: ForwardStateOptions): void {
  for (const url of o.others ?? []) {
    for (const file of [scopedStateFile(o.env, url, o.scope!, o.channel), defaultStateFile(o.env, url, o.channel)]) {
      const found = readStateFile(file);
      if (!found) continue;
      const at = found.lastSeq === undefined ? '' : ` (it resumes after seq ${found.lastSeq})`;
      throw new StateFileError(
        `the forward state ${file} was kept by an older service-hooks for ${url}${at}, and forward connected to ${o.relayUrl}: whether they are one relay is known only from ${url}'s own answer, so it is not taken over: put ${url} first in --relay (its file is taken over once its relay names itself), or pass --since ${found.lastSeq ?? 'SEQ'}, or delete it`,
      );
    }
  }
}

/** The cursor of a file written for another relay: refused, unless --since says where to start (then nothing of it is kept). */
function otherRelay(found: StateFileContent, file: string, o: ForwardStateOptions): StateFileContent {
  if (o.since !== undefined) return { retrying: [] };
  throw new StateFileError(
    `the forward state ${file} was written for relay ${found.relay}, and the relay at ${o.relayUrl} is ${o.relay}: another store, where its resume point (seq ${found.lastSeq ?? '-'}) means nothing; pass another --state FILE, or --since SEQ to start over in it, or delete it`,
  );
}

/** The cursor of a file found for scope `expected`; throws when it is another scope's, or of unknown scope without --since. */
function checked(found: StateFileContent, file: string, expected: string, o: ForwardStateOptions): StateFileContent | undefined {
  if (found.scope === expected) return found;
  if (found.scope !== undefined) {
    throw new StateFileError(
      `the forward state ${file} was written for ${found.scope}, and this token reads ${expected}: pass another --state FILE (without --state each token has its own), or delete it`,
    );
  }
  if (o.since === undefined) {
    const at = found.lastSeq === undefined ? '' : ` (it resumes after seq ${found.lastSeq})`;
    throw new StateFileError(
      `the forward state ${file} was written by an older service-hooks and does not say whose deliveries it follows${at}: if it is this forwarder's, restart with --since ${found.lastSeq ?? 'SEQ'} (--since 0 takes every delivery the relay holds), or delete it`,
    );
  }
  // --since says where to start; of its retrying deliveries, only those of what this token reads are kept.
  const mine = (r: RetryingDelivery) => (o.scope?.kind === 'channel' ? r.channel === o.scope.channel : o.channel === undefined || r.channel === o.channel);
  return { retrying: found.retrying.filter(mine) };
}
