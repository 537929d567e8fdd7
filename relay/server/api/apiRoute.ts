// One route of the REST API's table (api.ts; the channel routes: channelApi.ts): a path pattern
// and a handler per method (relay/shared/routes.ts). Apart from both so neither imports the other for it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Route as TableRoute } from '../../shared/routes';
import type { Scope } from '../access/scope';

export type Handler = (req: IncomingMessage, res: ServerResponse, params: string[], url: URL, scope: Scope) => Promise<void> | void;

export type Route = TableRoute<Handler>;
