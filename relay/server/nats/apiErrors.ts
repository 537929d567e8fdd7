// What a NATS or JetStream failure is, by the client's error types and JetStream's API error codes
// (nats-server's errors.json; the client's JetStreamApiCodes), never by the words of a message:
// the words change between server and client versions, the types and codes do not.
import { ClosedConnectionError, ConnectionError, DrainingConnectionError, NoRespondersError, RequestError, TimeoutError } from '@nats-io/transport-node';
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';

export { JetStreamApiCodes };

/** `no suitable peers for placement` (JSClusterNoPeersErrF), which the client's table does not name: a cluster still forming. */
const CLUSTER_NO_PEERS = 10005;

/** True when `err` is a JetStream API error with one of these codes. */
export function isApiError(err: unknown, ...codes: number[]): boolean {
  return err instanceof JetStreamApiError && codes.includes(err.code);
}

/** A message the stream does not hold: the client answers a read of it with null, and a read that must find one throws this. */
export class NoMessageError extends Error {
  override name = 'NoMessageError';
  constructor(stream: string, seq: number) {
    super(`no message found at seq ${seq} of ${stream}`);
  }
}

/** `m`, or NoMessageError when the client answered null (no such message). */
export function found<T>(m: T | null, stream: string, seq: number): T {
  if (m === null) throw new NoMessageError(stream, seq);
  return m;
}

/** "No such message", by type or code: a read answered null (NoMessageError), or the stream itself not found. */
export function isNotFound(err: unknown): boolean {
  return err instanceof NoMessageError || isApiError(err, JetStreamApiCodes.StreamNotFound);
}

/** `err` and the errors it wraps (a publish's JetStreamNotEnabled wraps a RequestError, which wraps NoRespondersError). */
function* chain(err: unknown): Generator<Error> {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) yield e;
}

/** Nobody has the subject now (no stream leader, status 503): another request at once fails the same way. */
export function noResponders(err: unknown): boolean {
  for (const e of chain(err)) if (e instanceof NoRespondersError) return true;
  return false;
}

/**
 * A request that may succeed when asked again: no answer in time, no responders (a stream without a
 * leader yet), the connection lost or moving, or JetStream saying it is unavailable for now (an
 * API error with status 503: temporarily unavailable, insufficient resources). Not a refusal of
 * the request itself (a message too large, a permission, a wrong last sequence).
 */
export function transient(err: unknown): boolean {
  for (const e of chain(err)) {
    if (e instanceof TimeoutError || e instanceof NoRespondersError) return true;
    if (e instanceof ConnectionError || e instanceof ClosedConnectionError || e instanceof DrainingConnectionError) return true;
    if (e instanceof JetStreamApiError) return e.status === 503;
  }
  // A RequestError that wraps nothing: the request was lost with its connection ("connection disconnected").
  return err instanceof RequestError && err.cause === undefined;
}

/** A cluster that has just started (or lost a peer): transient, or no peers to place a stream on yet. */
export function clusterNotReady(err: unknown): boolean {
  return transient(err) || isApiError(err, CLUSTER_NO_PEERS);
}

/** What to say of `err` in a log or a 503's reason: the client calls a publish nobody answered "jetstream is not enabled". */
export function describe(err: unknown): string {
  if (noResponders(err)) return 'no responders (503): the stream has no leader now';
  return err instanceof Error ? err.message : String(err);
}
