// A forward set-up's choices as the editor keeps them (issue 38 item 7), the same rules as
// `service-hooks forward --events/--route/--to` (relay/cli/forwardRoutes.ts): a filter of events
// (absent: every event the webhook's subscription sends), an app per event where the developer
// wants more than one, and the default app for the rest. A delivery left with no app is skipped
// by the filter, and the relay records it so. Pure: the Relay view, the quick input and the
// forwarder read it.
import { farTarget } from './appTrust';

export interface ForwardRouting {
  /** The default app (every event without a route of its own). */
  to: string;
  /** Only these events are forwarded; absent: all the webhook sends. */
  events?: string[];
  /** An event's own app. */
  routes?: Record<string, string>;
  /** No certificate check for the set-up's https apps (loopback apps only: routingProblem). */
  skipVerify?: boolean;
}

/** Where a delivery of `event` goes; undefined: the filter leaves it out. */
export function routeOf(r: ForwardRouting, event: string | undefined): string | undefined {
  if (r.events !== undefined && (event === undefined || !r.events.includes(event))) return undefined;
  return (event !== undefined ? r.routes?.[event] : undefined) ?? r.to;
}

/** The apps of a set-up, the default first, each once. */
export function routingTargets(r: ForwardRouting): string[] {
  return [...new Set([r.to, ...Object.values(r.routes ?? {})])];
}

/** Whether deliveries of the set-up can be left out (a filter): they are then recorded as skipped. */
export function filters(r: ForwardRouting): boolean {
  return r.events !== undefined;
}

/** Why the set-up cannot be kept as it is (skipping verification for an app not on this machine), or undefined. */
export function routingProblem(r: ForwardRouting): string | undefined {
  if (!r.skipVerify) return undefined;
  const far = farTarget(routingTargets(r).filter((t) => t.startsWith('https:')));
  return far === undefined
    ? undefined
    : `Skipping the certificate check is for an app on this machine only (127.0.0.1, ::1, localhost); ${new URL(far).host} is not: trust its CA with serviceHooks.relay.forwardCa instead.`;
}

/** The set-up's choices in a line for the Relay view: its own routes and its filter (the default app is in the label). */
export function routingDescription(r: ForwardRouting, short: (url: string) => string): string {
  const parts = Object.entries(r.routes ?? {})
    .filter(([event]) => r.events === undefined || r.events.includes(event))
    .map(([event, url]) => `${event} → ${short(url)}`);
  if (r.events !== undefined) parts.push(`only ${r.events.join(', ')}`);
  if (r.skipVerify) parts.push('certificate not checked');
  return parts.join(' · ');
}

/** One row of the "Events and apps" step: an event and where it goes now. */
export interface EventRouteRow {
  event: string;
  /** 'default' | 'own' | 'skipped' */
  how: 'default' | 'own' | 'skipped';
  url?: string;
}

/** The rows for `subscribed` events under `r` (events not forwarded show as skipped). */
export function eventRouteRows(subscribed: readonly string[], r: ForwardRouting): EventRouteRow[] {
  return subscribed.map((event) => {
    if (r.events !== undefined && !r.events.includes(event)) return { event, how: 'skipped' };
    const own = r.routes?.[event];
    return own !== undefined ? { event, how: 'own', url: own } : { event, how: 'default', url: r.to };
  });
}

/**
 * `r` with `event` sent to `how`: its own `url`, the default app, or left out. The filter stays
 * absent while every subscribed event is forwarded (it then follows the subscription).
 */
export function withEventRoute(
  r: ForwardRouting,
  subscribed: readonly string[],
  event: string,
  how: 'default' | 'own' | 'skipped',
  url?: string,
): ForwardRouting {
  const routes = { ...(r.routes ?? {}) };
  delete routes[event];
  if (how === 'own' && url !== undefined) routes[event] = url;
  const kept = new Set(r.events ?? subscribed);
  if (how === 'skipped') kept.delete(event);
  else kept.add(event);
  const events = subscribed.filter((e) => kept.has(e));
  const { routes: _r, events: _e, ...rest } = r;
  return {
    ...rest,
    ...(Object.keys(routes).length > 0 ? { routes } : {}),
    ...(events.length === subscribed.length ? {} : { events }),
  };
}

/**
 * Why a set-up's choices are wrong (given as arguments or read back), in words, or undefined: an
 * app URL that is not http(s) or holds credentials, an event not in `known`, nothing forwarded,
 * skipping verification for an app not on this machine.
 */
export function routingChoicesProblem(r: ForwardRouting, known: readonly string[], urlProblem: (url: string) => string | undefined): string | undefined {
  const unknown = [...(r.events ?? []), ...Object.keys(r.routes ?? {})].filter((e) => !known.includes(e));
  if (unknown.length > 0) return `Unknown event(s): ${[...new Set(unknown)].join(', ')} (known: ${known.join(', ')}).`;
  if (r.events !== undefined && r.events.length === 0) return 'Forward at least one event.';
  for (const [event, url] of [['', r.to] as const, ...Object.entries(r.routes ?? {})]) {
    const problem = urlProblem(url);
    if (problem) return event ? `The app for ${event}: ${problem}` : problem;
  }
  return routingProblem(r);
}
