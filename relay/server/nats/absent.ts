// When a seq of a stream may be skipped for good: the one decision that lets the index (and so
// every subscriber of the instance) pass over a seq, so it asks more than one "not found".
//
// A stream leader that has not applied a message yet answers STREAM.MSG.GET for it with "no
// message found" just as for a deleted one: a leader just elected that is still applying what was
// committed, or a server resumed after a pause (SIGSTOP, a hung machine) that answers as the
// leader it was until it hears of the new one. Taken as "gone", such an answer made the follower
// skip seqs that the stream did hold, so `service-hooks forward` never got those deliveries while
// the relay's own forward did (issue 21). A seq is gone only when the leader's own stream state
// says it was written and removed: below the first seq (purged by retention), or inside the
// stream's range and still not there when asked again after that state.
import { isNotFound } from './apiErrors';

export interface StreamLookups {
  /** The stream leader's STREAM.MSG.GET of `seq`: the message, or null when it holds none (as the client answers). */
  message(seq: number): Promise<unknown>;
  /** The stream leader's state. */
  state(): Promise<{ first_seq: number; last_seq: number }>;
}

/** Why a seq was found gone, for the log; undefined when it is not (or it is not known now). */
export type Gone = 'purged' | 'deleted' | undefined;

/** "Gone" only on the leader's word twice over (see above); any failure to ask means "not known": not gone. */
export async function goneFromStream(look: StreamLookups, seq: number): Promise<Gone> {
  if (!(await notFound(look, seq))) return undefined;
  const state = await look.state().catch(() => undefined);
  if (!state) return undefined;
  if (seq < state.first_seq) return 'purged';
  if (seq > state.last_seq) return undefined; // not written yet, as far as the one answering knows
  return (await notFound(look, seq)) ? 'deleted' : undefined;
}

async function notFound(look: StreamLookups, seq: number): Promise<boolean> {
  try {
    return (await look.message(seq)) === null;
  } catch (err) {
    return isNotFound(err); // the stream itself not found
  }
}
