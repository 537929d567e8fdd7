// What a subscriber's messages must hold to be applied: an ack with an integer seq, a report
// (`forwarded`) with an integer seq, an HTTP status and a forward state. Anything else is ignored
// (an ack whose `forwarded` is no HTTP status is refused with an error message: ackRefusal).
import type { AckMessage, ClientMessage } from '../../../src/core/relay/protocol';

const FORWARD_STATUSES = new Set<unknown>(['ok', 'failed', 'pending']);

/** A subscriber's text message, when it is an ack or a report whose fields have their types; else undefined. */
export function clientMessage(text: string): ClientMessage | undefined {
  let msg: ClientMessage;
  try {
    msg = JSON.parse(text) as ClientMessage;
  } catch {
    return undefined;
  }
  if (typeof msg !== 'object' || msg === null) return undefined; // `null`, numbers, strings: ignored
  if (msg.type === 'ack' && Number.isInteger(msg.seq)) return msg;
  if (
    msg.type === 'forwarded' &&
    Number.isInteger(msg.seq) &&
    Number.isInteger(msg.status) &&
    msg.status >= 100 &&
    msg.status <= 599 &&
    FORWARD_STATUSES.has(msg.state)
  )
    return msg;
  return undefined;
}

/** Why an ack is refused: a `forwarded` that is not { status: an integer HTTP status 100-599 }. */
export function ackRefusal(msg: AckMessage): string | undefined {
  if (msg.forwarded === undefined) return undefined;
  const status = (msg.forwarded as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599) return undefined;
  return `ack of seq ${msg.seq} refused: forwarded.status must be an integer HTTP status from 100 to 599, got ${JSON.stringify(status ?? msg.forwarded)?.slice(0, 40)}`;
}
