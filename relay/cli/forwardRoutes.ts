// `forward`'s filter and routes (issue 38 items 1, 2): which deliveries are posted, and where.
//   --events a,b / --exclude-events a,b   only (or all but) these event types are posted
//   --route EVENT=URL (repeatable), --route '*'=URL   the URL of a delivery's event; --to the default
// A delivery left with no URL is skipped by the filter (the relay records it so). The lookup runs
// per delivery: two set lookups and a map lookup, no allocation.
import { EVENT_TYPES } from '../../src/core/events/types';
import { UsageError } from './io';

/** Where a delivery of `event` goes; undefined: the filter leaves it out. */
export type Router = (channel: string, event?: string) => string | undefined;

export interface RouteFlags {
  to?: string;
  events?: string;
  excludeEvents?: string;
  routes?: readonly string[];
}

const KNOWN = EVENT_TYPES as readonly string[];

/** A comma-separated list of known event types; a usage error names the flag and the known ones. */
export function eventList(value: string, flag: string): Set<string> {
  const names = value.split(',').map((n) => n.trim());
  for (const n of names) {
    if (!KNOWN.includes(n)) throw new UsageError(`${flag}: unknown event '${n}' (known: ${KNOWN.join(', ')})`);
  }
  return new Set(names);
}

/** An http(s) URL without credentials, else a usage error naming the flag (the URL is not echoed when it holds a password). */
export function targetUrl(value: string, flag: string): string {
  if (!/^https?:\/\//i.test(value) || !URL.canParse(value)) throw new UsageError(`${flag} must be an http(s):// URL, got '${value}'`);
  const u = new URL(value);
  if (u.username || u.password)
    throw new UsageError(`${flag}: a URL with credentials in it (user:password@) is refused; the app gets the delivery's own signature`);
  return value;
}

/** `EVENT=URL` pairs; `*` names the rest. */
function parseRoutes(routes: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of routes) {
    const eq = r.indexOf('=');
    if (eq < 1) throw new UsageError(`--route must be EVENT=URL (or '*'=URL), got '${r.replace(/\/\/[^@/]*@/, '//…@')}'`);
    const event = r.slice(0, eq).trim();
    if (event !== '*' && !KNOWN.includes(event)) throw new UsageError(`--route: unknown event '${event}' (known: ${KNOWN.join(', ')}, or '*')`);
    if (out.has(event)) throw new UsageError(`--route: event '${event}' is routed twice`);
    out.set(event, targetUrl(r.slice(eq + 1).trim(), '--route'));
  }
  return out;
}

/** The router of the flags; throws UsageError when a flag is wrong or nothing could ever be posted. */
export function routerOf(f: RouteFlags): { route: Router; targets: string[]; filtered: boolean } {
  const only = f.events === undefined ? undefined : eventList(f.events, '--events');
  const except = f.excludeEvents === undefined ? undefined : eventList(f.excludeEvents, '--exclude-events');
  const routes = parseRoutes(f.routes ?? []);
  const to = f.to === undefined ? undefined : targetUrl(f.to, '--to');
  if (to === undefined && routes.size === 0) throw new UsageError('--to http(s)://… (or --route EVENT=URL) is required');
  const rest = routes.get('*') ?? to;
  const filtered = only !== undefined || except !== undefined || rest === undefined;
  const route: Router = filtered
    ? (_channel, event) => {
        if (only !== undefined && (event === undefined || !only.has(event))) return undefined;
        if (except !== undefined && event !== undefined && except.has(event)) return undefined;
        return (event !== undefined ? routes.get(event) : undefined) ?? rest;
      }
    : routes.size === 0
      ? () => rest
      : (_channel, event) => (event !== undefined ? routes.get(event) : undefined) ?? rest;
  const targets = [...new Set([...routes.values(), ...(to ? [to] : [])])];
  return { route, targets, filtered };
}
