// Runtime validators for the payloads of spec §2.3. Errors name the exact path of the bad value:
// `pull_request.head.sha: expected string`, `commits[2].author.email: expected string`.
// Events whose payload the spec does not show are accepted as any JSON object.
import { isEventType, type ValidationResult } from './types';

type Obj = Record<string, unknown>;

/** Collects `<path>: <message>` lines while walking a value. */
class Checker {
  readonly errors: string[] = [];

  fail(path: string, message: string): void {
    this.errors.push(`${path || '(root)'}: ${message}`);
  }

  object(v: unknown, path: string): Obj | undefined {
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Obj;
    this.fail(path, 'expected object');
    return undefined;
  }

  string(o: Obj, key: string, path: string): void {
    if (typeof o[key] !== 'string') this.fail(join(path, key), 'expected string');
  }

  integer(o: Obj, key: string, path: string): void {
    if (!Number.isInteger(o[key])) this.fail(join(path, key), 'expected integer');
  }

  boolean(o: Obj, key: string, path: string): void {
    if (typeof o[key] !== 'boolean') this.fail(join(path, key), 'expected boolean');
  }

  literal(o: Obj, key: string, value: string, path: string): void {
    if (o[key] !== value) this.fail(join(path, key), `expected "${value}"`);
  }

  child(o: Obj, key: string, path: string, fields: (c: Obj, p: string) => void): void {
    const p = join(path, key);
    const c = this.object(o[key], p);
    if (c) fields(c, p);
  }
}

function join(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path ? `${path}.${key}` : key;
}

function repository(k: Checker, o: Obj, path: string): void {
  k.child(o, 'repository', path, (r, p) => {
    k.string(r, 'name', p);
    k.string(r, 'full_name', p);
    k.string(r, 'url', p);
  });
}

function sender(k: Checker, o: Obj, path: string): void {
  k.child(o, 'sender', path, (s, p) => {
    k.string(s, 'login', p);
    k.string(s, 'type', p);
  });
}

function pointer(k: Checker, o: Obj, key: string, path: string): void {
  k.child(o, key, path, (g, p) => {
    k.string(g, 'ref', p);
    k.string(g, 'sha', p);
  });
}

function push(k: Checker, o: Obj): void {
  k.literal(o, 'event', 'push', '');
  repository(k, o, '');
  k.string(o, 'ref', '');
  k.string(o, 'before', '');
  k.string(o, 'after', '');
  if (!Array.isArray(o.commits)) k.fail('commits', 'expected array');
  else {
    o.commits.forEach((c, i) => {
      const p = join('commits', i);
      const commit = k.object(c, p);
      if (!commit) return;
      k.string(commit, 'id', p);
      k.string(commit, 'message', p);
      k.child(commit, 'author', p, (a, ap) => {
        k.string(a, 'name', ap);
        k.string(a, 'email', ap);
      });
    });
  }
  sender(k, o, '');
}

function pullRequest(k: Checker, o: Obj): void {
  k.literal(o, 'event', 'pull_request', '');
  k.string(o, 'action', '');
  k.integer(o, 'number', '');
  k.child(o, 'pull_request', '', (pr, p) => {
    k.string(pr, 'title', p);
    k.string(pr, 'body', p);
    k.string(pr, 'state', p);
    pointer(k, pr, 'head', p);
    pointer(k, pr, 'base', p);
    if (o.action === 'closed') k.boolean(pr, 'merged', p);
    else if (pr.merged !== undefined) k.boolean(pr, 'merged', p);
  });
  repository(k, o, '');
  sender(k, o, '');
}

function issue(k: Checker, o: Obj): void {
  k.literal(o, 'event', 'issue', '');
  k.child(o, 'issue', '', (i, p) => {
    k.integer(i, 'number', p);
    k.string(i, 'title', p);
    k.string(i, 'state', p);
  });
  // Not required by the spec, but when present they have the documented shapes.
  if (o.repository !== undefined) repository(k, o, '');
  if (o.sender !== undefined) sender(k, o, '');
}

const SHAPES: Record<string, (k: Checker, o: Obj) => void> = { push, pull_request: pullRequest, issue };

/**
 * Checks `value` against the payload shape of `event`. Unknown or unshown event types accept any
 * JSON object; a non-object is rejected for every event. An unknown event name is an error.
 */
export function validatePayload(event: string, value: unknown): ValidationResult {
  const k = new Checker();
  if (!isEventType(event) && event !== 'ping') return { ok: false, errors: [`event: unknown event type '${event}'`] };
  const o = k.object(value, '');
  if (o) SHAPES[event]?.(k, o);
  return k.errors.length === 0 ? { ok: true, payload: value } : { ok: false, errors: k.errors };
}

/** Splits `path: message` back into its parts ('' for the root). */
export function errorPath(error: string): string {
  const i = error.indexOf(': ');
  const path = i < 0 ? '' : error.slice(0, i);
  return path === '(root)' ? '' : path;
}
