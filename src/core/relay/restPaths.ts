// The relay's REST paths, once: the server matches requests against them (restPattern, in
// relay/server/api and relay/server/page), the clients build their URLs from them (restPath:
// relay/client/api.ts, the relay page's relay/web). A path parameter is `:seq` (1 to 15 digits: a
// seq beyond is no delivery, and Number() would round it) or `:name` (one segment, percent-encoded).
// Pure: no I/O.

export const REST_PATHS = {
  health: '/healthz',
  ready: '/readyz',
  status: '/api/status',
  deliveries: '/api/deliveries',
  delivery: '/api/deliveries/:seq',
  replay: '/api/deliveries/:seq/replay',
  retryPending: '/api/forward/retry',
  prune: '/api/prune',
  channels: '/api/channels',
  channel: '/api/channels/:name',
  // the relay page's own (relay/server/page), with its session cookie
  pageSession: '/page/session',
  pageEvents: '/page/events',
  pageExplain: '/page/explain/:seq',
} as const;

export type RestRoute = keyof typeof REST_PATHS;

/** How each parameter reads in a path: a delivery's seq is digits, a channel's name one segment. */
const PARAMS = { seq: '(\\d{1,15})', name: '([^/]+)' } as const;
type Param = keyof typeof PARAMS;

type ParamsOf<P extends string> = P extends `${string}:${infer N}/${infer Rest}` ? N | ParamsOf<`/${Rest}`> : P extends `${string}:${infer N}` ? N : never;

/** The parameters of `route`: none, or `{ seq }` / `{ name }`. */
export type RestParams<R extends RestRoute> = { [K in ParamsOf<(typeof REST_PATHS)[R]>]: K extends 'seq' ? number : string };

/** The path of `route` with its parameters filled in, each percent-encoded. */
export function restPath<R extends RestRoute>(route: R, ...params: ParamsOf<(typeof REST_PATHS)[R]> extends never ? [] : [RestParams<R>]): string {
  const values = (params[0] ?? {}) as Record<string, string | number>;
  return REST_PATHS[route].replace(/:(\w+)/g, (_m, n: string) => encodeURIComponent(String(values[n])));
}

/** A pattern matching `route`'s path exactly; its groups are the parameters in order, as sent (not decoded). */
export function restPattern(route: RestRoute): RegExp {
  const source = REST_PATHS[route].replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, (_m, n: string) => PARAMS[n as Param]);
  return new RegExp(`^${source}$`);
}
