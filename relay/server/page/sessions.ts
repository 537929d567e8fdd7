// The channel page's sessions: a token given once in the sign-in form becomes a random session id
// in an HttpOnly, SameSite=Strict cookie (Secure and __Host- under TLS) that expires. The token
// stays in this process's memory only, and every request authenticates it again, so deleting a
// channel (or rotating its token) ends its sessions at once; signing out forgets the session.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const DEFAULT_SESSION_MS = 8 * 3600 * 1000;
/** Sessions kept at most; the oldest go first past it. */
const MAX_SESSIONS = 10_000;

export interface Session {
  id: string;
  /** The token signed in with (never sent back, never logged). */
  token: string;
  /** Sent with every state-changing request in the x-csrf-token header. */
  csrf: string;
  expiresAt: number;
}

export class Sessions {
  private readonly byId = new Map<string, Session>();

  constructor(
    readonly secure: boolean,
    private readonly ttlMs = DEFAULT_SESSION_MS,
    private readonly now: () => number = Date.now,
  ) {}

  get cookieName(): string {
    return this.secure ? '__Host-sh_page' : 'sh_page';
  }

  create(token: string): Session {
    if (this.byId.size >= MAX_SESSIONS) this.byId.delete(this.byId.keys().next().value!);
    const s = { id: randomBytes(32).toString('base64url'), token, csrf: randomBytes(24).toString('base64url'), expiresAt: this.now() + this.ttlMs };
    this.byId.set(s.id, s);
    return s;
  }

  /** The request's live session, if its cookie names one. */
  of(req: IncomingMessage): Session | undefined {
    const id = cookie(req.headers.cookie, this.cookieName);
    if (!id) return undefined;
    const s = this.byId.get(id);
    if (!s) return undefined;
    if (s.expiresAt <= this.now()) {
      this.byId.delete(id);
      return undefined;
    }
    return s;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  end(session: Session): void {
    this.byId.delete(session.id);
  }

  /** Ends every session whose token no longer authenticates (a channel deleted or rotated). */
  prune(valid: (token: string) => boolean): void {
    for (const s of this.byId.values()) if (!valid(s.token)) this.byId.delete(s.id);
  }

  setCookie(session: Session): string {
    return `${this.cookieName}=${session.id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(this.ttlMs / 1000)}${this.secure ? '; Secure' : ''}`;
  }

  clearCookie(): string {
    return `${this.cookieName}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${this.secure ? '; Secure' : ''}`;
  }
}

/** Whether a presented CSRF value matches the session's (constant time). */
export function csrfMatches(session: Session, given: string | string[] | undefined): boolean {
  if (typeof given !== 'string' || given.length !== session.csrf.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(session.csrf));
}

function cookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
