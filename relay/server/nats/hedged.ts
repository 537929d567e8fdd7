// A request that a hung server may swallow, sent again while it goes unanswered (issue 21).
//
// A direct get goes to one of the stream's replicas, picked at random by nats-server from the
// queue group they serve. A replica that hangs (a paused or overloaded machine) stays in that
// group until its route is found dead, minutes at nats-server's default route pings: in the
// paused-leader runs one read in two went to it and waited out its 1 s time-out, so a subscriber,
// which reads its deliveries one after the other, fell 15 s and more behind the burst. Asked
// again after a short wait, another replica answers.
import { found, isNotFound } from './apiErrors';

export { isNotFound };

export interface HedgeOptions {
  /** How long an unanswered call runs alone before the next is sent beside it. */
  afterMs: number;
  /** Calls at most (in flight together, or one after another when they fail). */
  calls: number;
  /** Errors that another call may not repeat (a replica that is behind answers "not found"): kept over the others when all fail. */
  preferred?: (err: unknown) => boolean;
  /** Errors after which no further call is started (another would fail the same way at once). */
  final?: (err: unknown) => boolean;
}

/**
 * Calls `call`, and again every `afterMs` while none has answered, up to `calls` in all (a call
 * that fails starts the next at once). Resolves with the first answer; when every call failed,
 * rejects with the first `preferred` error, else the last one.
 */
export function hedged<T>(call: () => Promise<T>, o: HedgeOptions): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let started = 0;
    let inFlight = 0;
    let settled = false;
    let kept: unknown;
    let last: unknown;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settle = (fn: () => void) => {
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const next = (): void => {
      if (settled || started >= o.calls) return;
      started++;
      inFlight++;
      clearTimeout(timer);
      if (started < o.calls) timer = setTimeout(next, o.afterMs);
      call().then(
        (value) => settled || settle(() => resolve(value)),
        (err: unknown) => {
          inFlight--;
          if (settled) return;
          if (o.preferred?.(err)) kept ??= err;
          else last = err;
          if (o.final?.(err)) started = o.calls; // no more calls: settles once those in flight have
          if (started < o.calls) next();
          else if (inFlight === 0) settle(() => reject(kept ?? last));
        },
      );
    };
    next();
  });
}

/** A stream message as both the direct get and the leader's STREAM.MSG.GET answer it. */
export interface StreamMessage {
  data: Uint8Array;
  header: { get(name: string): string };
}

/** Reads by seq, answering null for a message the one asked does not hold (as the client does). */
export interface MessageReaders {
  /** Direct get: one of the stream's replicas, picked by nats-server. */
  direct(stream: string, seq: number): Promise<StreamMessage | null>;
  /** The stream leader's STREAM.MSG.GET. */
  leader(stream: string, seq: number): Promise<StreamMessage | null>;
}

/**
 * Message `seq` of `stream`, asked of a replica, then beside it of another every 120 ms while
 * none answers, the third time of the stream's leader (once elected, it answers even when both
 * other replicas are stuck or behind): five requests at most. Rejects with a replica's "not
 * found" (NoMessageError: it may only be behind) or the last error when none answered.
 */
export function readMessage(r: MessageReaders, stream: string, seq: number): Promise<StreamMessage> {
  let n = 0;
  const call = () => (n++ === 2 ? r.leader(stream, seq) : r.direct(stream, seq));
  return hedged(async () => found(await call(), stream, seq), { afterMs: 120, calls: 5, preferred: isNotFound });
}
