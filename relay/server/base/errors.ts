// The relay's typed start-up failures, so callers branch on a class (and `code`), not on a message.

/** The options or config file are wrong (a bad CIDR, channel name, forward target or secret): the CLI exits 2. */
export class RelayConfigError extends Error {
  override name = 'RelayConfigError';
  readonly code = 'ERR_RELAY_CONFIG';
}

/** The store could not make a delivery durable (no JetStream quorum, no connection): ingress answers 503. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}
