// Answers to requests node's HTTP parser refused (400 malformed, 408 too slow, 431 headers too
// large), written straight to the socket. A malformed request pipelined behind a valid one must
// not overtake the valid one's answer: its sender gets that answer first, then the refusal.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { refuseRaw } from '../../shared/http';

export interface ClientErrors {
  /** Called for every request: remembers the newest answer in progress on its connection. */
  track(req: IncomingMessage, res: ServerResponse): void;
  /** The server's 'clientError' listener. */
  refuse(err: NodeJS.ErrnoException, socket: Duplex): void;
}

export function clientErrors(): ClientErrors {
  const inFlight = new WeakMap<Duplex, { req: IncomingMessage; res: ServerResponse }>();
  const refused = new WeakSet<Duplex>();
  return {
    track(req, res) {
      const entry = { req, res };
      inFlight.set(req.socket, entry);
      res.once('close', () => {
        if (inFlight.get(req.socket) === entry) inFlight.delete(req.socket);
      });
    },
    refuse(err, socket) {
      if (refused.has(socket)) return;
      refused.add(socket);
      const status = clientErrorStatus(err.code);
      const prior = inFlight.get(socket);
      // Answers go out in request order: wait for a request read whole whose answer is still coming.
      if (prior && prior.req.complete && !prior.res.writableFinished) prior.res.once('close', () => refuseRaw(socket, status));
      else refuseRaw(socket, status);
    },
  };
}

function clientErrorStatus(code: string | undefined): number {
  return code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
}
