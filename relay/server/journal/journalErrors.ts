// The journal's failure states, as classes callers map by type (never by message).

/** The journal was closed (the relay is stopping): appends are refused. */
export class JournalClosedError extends Error {
  override readonly name = 'JournalClosedError';
  constructor() {
    super('journal is closed');
  }
}

/**
 * A write failed and the journal could neither cut off what the failed batch left in the segment
 * nor go on in a fresh segment: every later append is refused, since its location would be wrong.
 */
export class JournalFailedError extends Error {
  override readonly name = 'JournalFailedError';
  constructor(cause: unknown) {
    super(`journal refuses appends after a write it could not undo: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

/** A record read back does not match its frame (length, type or checksum). */
export class JournalCorruptError extends Error {
  override readonly name = 'JournalCorruptError';
  constructor(
    readonly segment: number,
    readonly offset: number,
    detail: string,
  ) {
    super(`journal segment ${segment} offset ${offset}: ${detail}`);
  }
}
