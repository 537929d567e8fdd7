// The relay API's refusal, by type: callers test `err instanceof RelayApiError` and its status,
// never an error's text or a duck-typed `status`. Its own module (no undici), so the editor can
// test for it without loading the client at activation.

/** The relay answered a REST request with a non-2xx status (or a body that is not JSON). */
export class RelayApiError extends Error {
  override name = 'RelayApiError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
