// The seam between the page's sessions (relay/server/page/sessions.ts) and a store that shares them
// with the other relay instances (relay/server/nats/sessionKv.ts): the record kept of a session,
// what the store does with records, and what it tells the sessions of the other instances' ones.

/** What is kept of a session, here and (on a shared store) for every instance. */
export interface StoredSession {
  /** The SHA-256 of the session id (the cookie's value): the record's name. */
  ref: string;
  /** The SHA-256 of its token: a token's sessions are counted together. */
  owner: string;
  /** 'admin', or the channel identity the token was signed in to (its sessions end with it). */
  scope: string;
  /** The token, sealed with a key only the session id gives. */
  sealed: string;
  /** The SHA-256 of the tab's key. */
  keyHash: string;
  createdAt: number;
  expiresAt: number;
}

/** Where the records are shared with the other relay instances of the store. */
export interface SessionShare {
  created(s: StoredSession): Promise<void>;
  ended(ref: string): Promise<void>;
  /** The record `ref` as the shared store holds it now (one made at another instance a moment ago). */
  fetch(ref: string): Promise<StoredSession | undefined>;
}

/** What a shared store needs of the sessions: their lifetime, to be told of the other instances' records, and to write its own there. */
export interface SharedSessions {
  readonly ttlMs: number;
  /** A session made at another instance. */
  apply(record: StoredSession): void;
  /** A session ended at another instance. */
  applyEnded(ref: string): void;
  /** Keeps the records in `share` from now on. */
  shareIn(share: SessionShare): void;
}
