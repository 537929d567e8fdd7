// The page's sessions as a shared store sees them (issue 42 item 2): the record every instance
// keeps, the share the page's Sessions (relay/server/page/sessions.ts) writes to, and what a
// shared store's follower (relay/server/nats/sessionKv.ts) calls back. Here, a floor below both.

/** What is kept of a session, here and (on a shared store) for every instance. */
export interface StoredSession {
  /** The SHA-256 of the session id (the cookie's value): the record's name. */
  ref: string;
  /** The SHA-256 of its token: a token's sessions are counted together. */
  owner: string;
  /** ADMIN_SCOPE, or the channel identity the token was signed in to (its sessions end with it). */
  scope: string;
  /** The token, sealed with a key only the session id gives. */
  sealed: string;
  /** The SHA-256 of the tab's key. */
  keyHash: string;
  createdAt: number;
  expiresAt: number;
}

/** Where the records are shared with the other relay instances of the store (relay/server/nats/sessionKv.ts). */
export interface SessionShare {
  created(s: StoredSession): Promise<void>;
  ended(ref: string): Promise<void>;
  /** The record `ref` as the shared store holds it now (one made at another instance a moment ago). */
  fetch(ref: string): Promise<StoredSession | undefined>;
}

/** What a shared store's follower tells the page's sessions (page/sessions.ts implements it). */
export interface SharedSessions {
  readonly ttlMs: number;
  shareIn(share: SessionShare): void;
  /** A record made or renewed at another instance. */
  apply(s: StoredSession): void;
  /** A session ended at another instance. */
  applyEnded(ref: string): void;
}
