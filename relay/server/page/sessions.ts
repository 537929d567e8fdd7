// The channel page's sessions: a token given once in the sign-in form becomes a random session id
// in an HttpOnly, SameSite=Strict cookie (Secure and __Host- over HTTPS: under TLS, or behind a
// --trust-proxy proxy that says X-Forwarded-Proto: https) that expires, and a random key the page
// keeps in its tab's sessionStorage and sends with every request (PAGE_KEY_HEADER). A cookie goes
// to every port of its host, so another local server the browser visits gets it; the key stays
// with this relay's origin, and a cookie without it is no session. Every request authenticates the
// session's token again, so deleting a channel (or rotating its token) ends its sessions at once;
// signing out forgets the session.
// A session is kept as a record (StoredSession) that holds neither its id nor its token in the
// clear (./sessionSeal.ts). On a shared store (JetStream) the records are every instance's
// (SessionShare, relay/server/nats/sessionKv.ts): a session signed in at one instance works at all
// of them, and one ended at any is ended at all; otherwise they live in this process only.
// Each token holds at most MAX_SESSIONS_PER_TOKEN sessions (a new sign-in past it ends that token's
// oldest); the relay at most MAX_SESSIONS, and past that a sign-in is refused: one token's
// sign-ins never sign another token out.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { SessionShare, SharedSessions, StoredSession } from '../base/sessionShare';
import { csrfOf, digest, refOf, same, seal, unseal } from './sessionSeal';

export type { SessionShare, StoredSession } from '../base/sessionShare';

export const DEFAULT_SESSION_MS = 8 * 3600 * 1000;
/** Sessions kept at most (all tokens); past it a sign-in is refused, never another token's session ended. */
export const MAX_SESSIONS = 10_000;
/** Sessions of one token at most; its own oldest ends past it. */
export const MAX_SESSIONS_PER_TOKEN = 100;
/** The header that carries the session's key (the page sends it with every request). */
export const PAGE_KEY_HEADER = 'x-page-key';
/** A session's scope when it is the admin token's (else the channel's identity, name@generation). */
export const ADMIN_SCOPE = 'admin';

/** A session opened with its cookie. */
export interface Session {
  id: string;
  ref: string;
  /** The token signed in with (never sent back, never logged, never stored in the clear). */
  token: string;
  /** Sent with every state-changing request in the x-csrf-token header. */
  csrf: string;
  /** The tab's key: only in the session a sign-in just made (the tab that signed in keeps it). */
  key?: string;
  keyHash: string;
  expiresAt: number;
}

/** Sessions ended lately that a late answer of the shared store must not bring back. */
const REMEMBERED_ENDS = MAX_SESSIONS;

export class Sessions implements SharedSessions {
  private readonly byRef = new Map<string, StoredSession>();
  /** Each token's sessions, oldest first. */
  private readonly byOwner = new Map<string, StoredSession[]>();
  private readonly endedLately = new Set<string>();
  private readonly endListeners: (() => void)[] = [];
  private share: SessionShare | undefined;

  constructor(
    readonly ttlMs = DEFAULT_SESSION_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Keeps the records in `share` from now on, for every instance of the store. */
  shareIn(share: SessionShare): void {
    this.share = share;
  }

  /** Calls `told` after sessions ended (here or at another instance). */
  onEnded(told: () => void): void {
    this.endListeners.push(told);
  }

  /** The cookie's name: `__Host-` over HTTPS (`secure`), which a plain-http page cannot set. */
  cookieName(secure: boolean): string {
    return secure ? '__Host-sh_page' : 'sh_page';
  }

  /** A new session of `token` here; undefined when the relay holds MAX_SESSIONS of other tokens' live ones. */
  create(token: string, scope = ADMIN_SCOPE): Session | undefined {
    return this.make(token, scope).session;
  }

  /** A new session of `token`, shared with every instance before it is given (the next request may reach another). */
  async start(token: string, scope: string): Promise<Session | undefined> {
    const { session, displaced } = this.make(token, scope);
    if (!session || !this.share) return session;
    const record = this.byRef.get(session.ref)!;
    try {
      await this.share.created(record);
    } catch (err) {
      this.drop([record]);
      throw err;
    }
    // Only tidying: every instance drops a token's oldest past the limit as the new one arrives.
    if (displaced) await this.share.ended(displaced.ref).catch(() => undefined);
    return session;
  }

  private make(token: string, scope: string): { session?: Session; displaced?: StoredSession } {
    const owner = digest(token);
    const oldest = this.byOwner.get(owner)?.[0];
    const displaced = (this.byOwner.get(owner)?.length ?? 0) >= MAX_SESSIONS_PER_TOKEN ? oldest : undefined;
    if (displaced) this.drop([displaced]);
    if (this.byRef.size >= MAX_SESSIONS) this.dropWhere((s) => s.expiresAt <= this.now());
    if (this.byRef.size >= MAX_SESSIONS) return { displaced };
    const id = randomBytes(32).toString('base64url');
    const key = randomBytes(32).toString('base64url');
    const at = this.now();
    const record = { ref: refOf(id), owner, scope, sealed: seal(id, token), keyHash: digest(key), createdAt: at, expiresAt: at + this.ttlMs };
    this.add(record);
    return { session: { ...opened(id, token, record), key }, displaced };
  }

  /** A session made at another instance (the shared store's watch, or a fetch). */
  apply(record: StoredSession): void {
    if (this.byRef.has(record.ref) || this.endedLately.has(record.ref) || record.expiresAt <= this.now()) return;
    this.add(record);
    const own = this.byOwner.get(record.owner)!;
    if (own.length > MAX_SESSIONS_PER_TOKEN) this.drop([own[0]!]); // its maker ends it in the shared store
  }

  /** A session ended at another instance. */
  applyEnded(ref: string): void {
    const s = this.byRef.get(ref);
    if (s) this.drop([s]);
  }

  private add(record: StoredSession): void {
    this.byRef.set(record.ref, record);
    const own = [...(this.byOwner.get(record.owner) ?? []), record].sort((x, y) => x.createdAt - y.createdAt);
    this.byOwner.set(record.owner, own);
  }

  /** Forgets `ended` here, then tells the listeners once. */
  private drop(ended: StoredSession[]): void {
    for (const s of ended) {
      this.byRef.delete(s.ref);
      this.endedLately.add(s.ref);
      if (this.endedLately.size > REMEMBERED_ENDS) this.endedLately.delete(this.endedLately.values().next().value!);
      const left = (this.byOwner.get(s.owner) ?? []).filter((o) => o !== s);
      if (left.length) this.byOwner.set(s.owner, left);
      else this.byOwner.delete(s.owner);
    }
    if (ended.length) for (const told of this.endListeners) told();
  }

  /** The request's live session: its cookie names one and it carries that session's key. */
  of(req: IncomingMessage, secure: boolean): Session | undefined {
    const s = this.named(req, secure);
    return s && keyMatches(s, req.headers[PAGE_KEY_HEADER]) ? s : undefined;
  }

  /** As `of`, asking the shared store for a session made at another instance that this one has not heard of yet. */
  async find(req: IncomingMessage, secure: boolean): Promise<Session | undefined> {
    await this.fetch(req, secure);
    return this.of(req, secure);
  }

  /** As `named`, asking the shared store as `find` does. */
  async findNamed(req: IncomingMessage, secure: boolean): Promise<Session | undefined> {
    await this.fetch(req, secure);
    return this.named(req, secure);
  }

  private async fetch(req: IncomingMessage, secure: boolean): Promise<void> {
    const id = cookie(req.headers.cookie, this.cookieName(secure));
    if (!id || !this.share || this.byRef.has(refOf(id))) return;
    const record = await this.share.fetch(refOf(id));
    if (record) this.apply(record);
  }

  /** The live session the request's cookie names, whether or not it carries the key. */
  named(req: IncomingMessage, secure: boolean): Session | undefined {
    const id = cookie(req.headers.cookie, this.cookieName(secure));
    const s = id ? this.byRef.get(refOf(id)) : undefined;
    if (!id || !s) return undefined;
    if (s.expiresAt <= this.now()) {
      this.drop([s]);
      return undefined;
    }
    const token = unseal(id, s.sealed);
    return token === undefined ? undefined : opened(id, token, s);
  }

  has(id: string): boolean {
    return this.byRef.has(refOf(id));
  }

  /** Ends `session` at every instance of a shared store, then here (kept when the store was not told: a retry ends it). */
  async end(session: Session): Promise<void> {
    await this.share?.ended(session.ref);
    const s = this.byRef.get(session.ref);
    if (s) this.drop([s]);
  }

  /**
   * Ends every session that expired or whose scope is no longer valid (a channel deleted or
   * rotated), at every instance; resolves once the shared store was told.
   */
  async prune(valid: (scope: string) => boolean): Promise<void> {
    const now = this.now();
    const gone = this.dropWhere((s) => s.expiresAt <= now || !valid(s.scope));
    // Expired ones leave the shared store by its own age limit.
    await Promise.all(gone.filter((s) => s.expiresAt > now).map((s) => this.share?.ended(s.ref)));
  }

  private dropWhere(pred: (s: StoredSession) => boolean): StoredSession[] {
    const gone = [...this.byRef.values()].filter(pred);
    this.drop(gone);
    return gone;
  }

  setCookie(session: Session, secure: boolean): string {
    return `${this.cookieName(secure)}=${session.id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(this.ttlMs / 1000)}${secure ? '; Secure' : ''}`;
  }

  clearCookie(secure: boolean): string {
    return `${this.cookieName(secure)}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
  }
}

function opened(id: string, token: string, s: StoredSession): Session {
  return { id, ref: s.ref, token, csrf: csrfOf(id), keyHash: s.keyHash, expiresAt: s.expiresAt };
}

/** Whether a presented page key is the session's (constant time). */
export function keyMatches(session: Session, given: string | string[] | undefined): boolean {
  return typeof given === 'string' && same(session.keyHash, digest(given));
}

/** Whether a presented CSRF value matches the session's (constant time). */
export function csrfMatches(session: Session, given: string | string[] | undefined): boolean {
  return same(session.csrf, given);
}

function cookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
