// Routes as a table: each route a path pattern and a handler per method. The relay's /api
// (relay/server/api) and its page (relay/server/page) look their requests up in one with
// matchRoute(); the emulator's table (relay/emulator/routes.ts) has the same shape.

/** One route: a path pattern (its groups are the handler's params) and a handler per method. */
export interface Route<H> {
  pattern: RegExp;
  methods: Partial<Record<string, H>>;
}

/** What a table has for a request: the handler and its params, or (a known path, another method) the methods it allows. */
export type RouteMatch<H> = { handler: H; params: string[] } | { handler?: undefined; allow: string };

/** The first route whose pattern matches `path`; undefined when none does. */
export function matchRoute<H>(routes: readonly Route<H>[], path: string, method: string): RouteMatch<H> | undefined {
  for (const r of routes) {
    const m = r.pattern.exec(path);
    if (!m) continue;
    const handler = r.methods[method];
    return handler ? { handler, params: m.slice(1) } : { allow: Object.keys(r.methods).join(', ') };
  }
  return undefined;
}
