// The page's sessions, shared by every relay instance on one JetStream store: a KV bucket
// (<prefix>_SESSIONS, entries aged out with the sessions' lifetime) holds `s.<ref>`, a session's
// record (relay/server/page/sessions.ts: neither its cookie nor its token in the clear). A watch
// keeps each instance's copy in step, so a sign-out, or a session ended by a deleted channel or by
// its token's limit, ends it everywhere within moments; a session made a moment ago at another
// instance is read from the bucket when a request brings its cookie before the watch does.
import type { JetStreamClient } from '@nats-io/jetstream';
import type { KvEntry } from '@nats-io/kv';
import type { SessionShare, SharedSessions as Sessions, StoredSession } from '../base/sessionShare';
import { encoded, followBucket } from './kvBucket';
import { StoreUnavailableError } from '../base/errors';
import { describe } from './apiErrors';

export interface SessionKvOptions {
  prefix: string;
  replicas: number;
  log?: (line: string) => void;
}

const S = 's.';

/** Loads the bucket into `sessions`, keeps them in step, and makes them write there. Returns a stop function. */
export async function shareSessions(sessions: Sessions, js: JetStreamClient, o: SessionKvOptions): Promise<() => void> {
  const bucket = { replicas: o.replicas, history: 1, ttl: sessions.ttlMs };
  const { kv, stop } = await followBucket(js, `${o.prefix}_SESSIONS`, bucket, (e) => apply(sessions, e, o.log));
  const share: SessionShare = {
    created: (s) => answered('a new session', async () => void (await kv.put(S + s.ref, encoded(s)))),
    ended: (ref) => answered('the end of a session', () => kv.delete(S + ref)),
    fetch: (ref) =>
      answered('a read of a session', async () => {
        const e = await kv.get(S + ref);
        return e?.operation === 'PUT' ? record(e, o.log) : undefined;
      }),
  };
  sessions.shareIn(share);
  return stop;
}

/** `op`, its failure a StoreUnavailableError (503 with Retry-After) naming what JetStream did not take. */
async function answered<T>(what: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    throw new StoreUnavailableError(`page sessions: JetStream did not take ${what} (${describe(err)}); try again`);
  }
}

function apply(sessions: Sessions, e: KvEntry, log?: (line: string) => void): void {
  if (!e.key.startsWith(S)) return;
  if (e.operation !== 'PUT') return sessions.applyEnded(e.key.slice(S.length));
  const s = record(e, log);
  if (s) sessions.apply(s);
}

function record(e: KvEntry, log?: (line: string) => void): StoredSession | undefined {
  try {
    const s = e.json<StoredSession>();
    const texts = [s.ref, s.owner, s.scope, s.sealed, s.keyHash].every((v) => typeof v === 'string');
    if (texts && typeof s.createdAt === 'number' && typeof s.expiresAt === 'number') return s;
  } catch {
    // reported below
  }
  log?.(`page sessions: ignoring a malformed entry ${e.key} in the shared store`);
  return undefined;
}
