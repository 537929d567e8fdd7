// The channel page's sessions: a token given once in the sign-in form becomes a random session id
// in an HttpOnly, SameSite=Strict cookie (Secure and __Host- over HTTPS: under TLS, or behind a
// --trust-proxy proxy that says X-Forwarded-Proto: https) that expires, and a random key the page
// keeps in its tab's sessionStorage and sends with every request (PAGE_KEY_HEADER). A cookie goes
// to every port of its host, so another local server the browser visits gets it; the key stays
// with this relay's origin, and a cookie without it is no session. The token stays in this
// process's memory only, and every request authenticates it again, so deleting a channel (or
// rotating its token) ends its sessions at once; signing out forgets the session.
// Each token holds at most MAX_SESSIONS_PER_TOKEN sessions (a new sign-in past it ends that token's
// oldest); the relay at most MAX_SESSIONS, and past that a sign-in is refused: one token's
// sign-ins never sign another token out.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const DEFAULT_SESSION_MS = 8 * 3600 * 1000;
/** Sessions kept at most (all tokens); past it a sign-in is refused, never another token's session ended. */
export const MAX_SESSIONS = 10_000;
/** Sessions of one token at most; its own oldest ends past it. */
export const MAX_SESSIONS_PER_TOKEN = 100;
/** The header that carries the session's key (the page sends it with every request). */
export const PAGE_KEY_HEADER = 'x-page-key';

export interface Session {
  id: string;
  /** The token signed in with (never sent back, never logged). */
  token: string;
  /** Sent with every state-changing request in the x-csrf-token header. */
  csrf: string;
  /** Sent with every request in PAGE_KEY_HEADER: given once, at sign-in, to the tab that signed in. */
  key: string;
  expiresAt: number;
}

export class Sessions {
  private readonly byId = new Map<string, Session>();
  /** Each token's sessions, oldest first. */
  private readonly byToken = new Map<string, Session[]>();

  constructor(
    private readonly ttlMs = DEFAULT_SESSION_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cookie's name: `__Host-` over HTTPS (`secure`), which a plain-http page cannot set. */
  cookieName(secure: boolean): string {
    return secure ? '__Host-sh_page' : 'sh_page';
  }

  /** A new session of `token`; undefined when the relay holds MAX_SESSIONS of other tokens' live ones. */
  create(token: string): Session | undefined {
    const own = this.byToken.get(token) ?? [];
    if (own.length >= MAX_SESSIONS_PER_TOKEN) this.drop(own[0]!);
    if (this.byId.size >= MAX_SESSIONS) this.prune(() => true);
    if (this.byId.size >= MAX_SESSIONS) return undefined;
    const s = {
      id: randomBytes(32).toString('base64url'),
      token,
      csrf: randomBytes(24).toString('base64url'),
      key: randomBytes(32).toString('base64url'),
      expiresAt: this.now() + this.ttlMs,
    };
    this.byId.set(s.id, s);
    this.byToken.set(token, [...(this.byToken.get(token) ?? []), s]);
    return s;
  }

  private drop(s: Session): void {
    this.byId.delete(s.id);
    const left = (this.byToken.get(s.token) ?? []).filter((o) => o !== s);
    if (left.length) this.byToken.set(s.token, left);
    else this.byToken.delete(s.token);
  }

  /** The request's live session: its cookie names one and it carries that session's key. */
  of(req: IncomingMessage, secure: boolean): Session | undefined {
    const s = this.named(req, secure);
    return s && keyMatches(s, req.headers[PAGE_KEY_HEADER]) ? s : undefined;
  }

  /** The live session the request's cookie names, whether or not it carries the key. */
  named(req: IncomingMessage, secure: boolean): Session | undefined {
    const id = cookie(req.headers.cookie, this.cookieName(secure));
    if (!id) return undefined;
    const s = this.byId.get(id);
    if (!s) return undefined;
    if (s.expiresAt <= this.now()) {
      this.drop(s);
      return undefined;
    }
    return s;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  end(session: Session): void {
    this.drop(session);
  }

  /** Ends every session that expired or whose token no longer authenticates (a channel deleted or rotated). */
  prune(valid: (token: string) => boolean): void {
    const now = this.now();
    for (const s of [...this.byId.values()]) if (s.expiresAt <= now || !valid(s.token)) this.drop(s);
  }

  setCookie(session: Session, secure: boolean): string {
    return `${this.cookieName(secure)}=${session.id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(this.ttlMs / 1000)}${secure ? '; Secure' : ''}`;
  }

  clearCookie(secure: boolean): string {
    return `${this.cookieName(secure)}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
  }
}

/** Whether a presented page key is the session's (constant time). */
export function keyMatches(session: Session, given: string | string[] | undefined): boolean {
  return same(session.key, given);
}

/** Whether a presented CSRF value matches the session's (constant time). */
export function csrfMatches(session: Session, given: string | string[] | undefined): boolean {
  return same(session.csrf, given);
}

function same(expected: string, given: string | string[] | undefined): boolean {
  if (typeof given !== 'string' || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

function cookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
