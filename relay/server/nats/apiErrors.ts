// What a JetStream failure is, by its API error code (nats-server's errors.json), never by the
// words of its message: the words change between server versions, the codes do not.
import { NatsError } from 'nats';

/** `stream not found` (JSStreamNotFoundErr). */
export const STREAM_NOT_FOUND = 10059;
/** `no message found` (JSNoMessageFoundErr). */
export const NO_MESSAGE_FOUND = 10037;
/** `wrong last sequence` (JSStreamWrongLastSequenceErr): a KV create of a key that exists. */
export const WRONG_LAST_SEQUENCE = 10071;

/** True when `err` is a JetStream API error with one of these codes. */
export function isApiError(err: unknown, ...codes: number[]): boolean {
  const code = err instanceof NatsError ? err.api_error?.err_code : undefined;
  return code !== undefined && codes.includes(code);
}

/**
 * A direct get (not an API call, so it has no API error code) answers "no such message" with
 * status 404 in its reply's headers; the client makes it a NatsError with code '404'.
 */
export function isDirectGetNotFound(err: unknown): boolean {
  return err instanceof NatsError && err.code === '404';
}
