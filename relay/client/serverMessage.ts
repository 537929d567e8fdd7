// A relay's WebSocket message, decoded from its frames (ws binaryType 'fragments': the frames as
// they came, never joined). A delivery of a large body arrives as one message of JSON whose
// `bodyBase64` holds the body: parsed as text, the frames, the joined message, its text, the
// parsed base64 string and the decoded body were all held at once (8× the body in `forward`).
// Here the base64 is found in the frames' bytes and decoded from them straight into the body,
// and only the rest of the message is parsed as JSON: the frames and the body, about 2.3× the
// body. Any relay's messages decode alike (no negotiation): a message this does not recognise is
// parsed whole, as before. A relay that knows `bodies=binary` sends a large body as raw binary
// messages after its message instead (./followingBody.ts).
import type { DeliveryMessage, ServerMessage } from '../../src/core/relay/protocol';

type Delivery = DeliveryMessage['delivery'];

/** Messages up to this size are parsed whole (the JSON of a small body costs less than finding it). */
export const DECODE_IN_PLACE_BYTES = 64 * 1024;

const KEY = Buffer.from('"bodyBase64":"');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** What stands in for the base64 in the JSON that is parsed: no base64 holds a NUL. */
const STAND_IN = '\\u0000';

/** The bodies decoded here, by their delivery (read with deliveryBody). */
const bodies = new WeakMap<Delivery, Buffer>();

/** The body of a received delivery: decoded already, or from its bodyBase64. */
export function deliveryBody(d: Delivery): Buffer | undefined {
  const decoded = bodies.get(d);
  if (decoded) return decoded;
  return d.bodyBase64 === undefined ? undefined : Buffer.from(d.bodyBase64, 'base64');
}

/** Parses one server message; undefined when it is not JSON. */
export function parseServerMessage(data: Buffer | Buffer[] | ArrayBuffer): ServerMessage | undefined {
  const frames = Array.isArray(data) ? data : [Buffer.isBuffer(data) ? data : Buffer.from(data)];
  let size = 0;
  for (const f of frames) size += f.length;
  if (size > DECODE_IN_PLACE_BYTES) {
    const msg = inPlace(frames);
    if (msg) return msg;
  }
  try {
    return JSON.parse(Buffer.concat(frames, size).toString()) as ServerMessage;
  } catch {
    return undefined;
  }
}

/** A position in the frames: frame index and offset in it. */
interface At {
  frame: number;
  offset: number;
}

/** A delivery or replay message with its body decoded from the frames; undefined when it is not one of those. */
function inPlace(frames: Buffer[]): ServerMessage | undefined {
  const key = find(frames, KEY);
  if (!key) return undefined;
  const start = advance(frames, key, KEY.length);
  const end = findByte(frames, start, QUOTE);
  // A backslash would be a JSON escape inside the base64 (this relay writes none): parsed whole then.
  if (!end || before(findByte(frames, start, BACKSLASH), end)) return undefined;
  const head = slice(frames, { frame: 0, offset: 0 }, start);
  const tail = slice(frames, advance(frames, end, 1), { frame: frames.length, offset: 0 });
  let msg: ServerMessage;
  try {
    msg = JSON.parse(head.toString() + STAND_IN + '"' + tail.toString()) as ServerMessage;
  } catch {
    return undefined;
  }
  // The stand-in must have landed in the delivery's own bodyBase64 (not some other field so named).
  if ((msg.type !== 'delivery' && msg.type !== 'replay') || msg.delivery?.bodyBase64 !== '\0') return undefined;
  const body = decodeBase64(frames, start, end);
  attachBody(msg.delivery, body);
  return msg;
}

/**
 * Replaces the delivery's bodyBase64 with `body`: read back with deliveryBody; bodyBase64 stays
 * a (lazy, enumerable) property for code that reads it, encoded only if it is read.
 */
export function attachBody(d: Delivery, body: Buffer): void {
  bodies.set(d, body);
  let encoded: string | undefined;
  Object.defineProperty(d, 'bodyBase64', { enumerable: true, configurable: true, get: () => (encoded ??= body.toString('base64')) });
}

/** Decodes the base64 from `start` up to `end` (exclusive) across frames, into one buffer of the body's size. */
function decodeBase64(frames: Buffer[], start: At, end: At): Buffer {
  let chars = 0;
  for (let f = start.frame; f <= end.frame && f < frames.length; f++)
    chars += (f === end.frame ? end.offset : frames[f]!.length) - (f === start.frame ? start.offset : 0);
  const body = Buffer.allocUnsafe(Math.ceil(chars / 4) * 3);
  let written = 0;
  let carry = '';
  for (let f = start.frame; f <= end.frame && f < frames.length; f++) {
    const text = carry + frames[f]!.toString('latin1', f === start.frame ? start.offset : 0, f === end.frame ? end.offset : undefined);
    const whole = text.length - (text.length % 4);
    carry = text.slice(whole);
    if (whole > 0) written += body.write(text.slice(0, whole), written, 'base64');
  }
  if (carry) written += body.write(carry, written, 'base64');
  return body.subarray(0, written);
}

/** The first occurrence of `pattern` across the frames (it may span a boundary). */
function find(frames: Buffer[], pattern: Buffer): At | undefined {
  let tail = Buffer.alloc(0);
  for (let f = 0; f < frames.length; f++) {
    const frame = frames[f]!;
    if (tail.length > 0) {
      // An occurrence that starts in the previous frames and ends in this one.
      const joined = Buffer.concat([tail, frame.subarray(0, pattern.length - 1)]);
      const i = joined.indexOf(pattern);
      if (i >= 0) return back(frames, { frame: f, offset: 0 }, tail.length - i);
    }
    const i = frame.indexOf(pattern);
    if (i >= 0) return { frame: f, offset: i };
    // The last pattern.length - 1 bytes seen so far (a copy: never the whole frame).
    const keep = pattern.length - 1;
    tail = frame.length >= keep ? Buffer.from(frame.subarray(frame.length - keep)) : Buffer.concat([tail, frame]).subarray(-keep);
  }
  return undefined;
}

/** The first `byte` at or after `from`. */
function findByte(frames: Buffer[], from: At, byte: number): At | undefined {
  for (let f = from.frame; f < frames.length; f++) {
    const i = frames[f]!.indexOf(byte, f === from.frame ? from.offset : 0);
    if (i >= 0) return { frame: f, offset: i };
  }
  return undefined;
}

/** Is `a` (if any) before `b`? */
function before(a: At | undefined, b: At): boolean {
  return a !== undefined && (a.frame < b.frame || (a.frame === b.frame && a.offset < b.offset));
}

/** `at` moved forward by `n` bytes (normalised: an offset at a frame's end is the next frame's start). */
function advance(frames: Buffer[], at: At, n: number): At {
  let { frame, offset } = at;
  offset += n;
  while (frame < frames.length && offset >= frames[frame]!.length) {
    offset -= frames[frame]!.length;
    frame++;
  }
  return { frame, offset };
}

/** `at` moved back by `n` bytes. */
function back(frames: Buffer[], at: At, n: number): At {
  let { frame, offset } = at;
  offset -= n;
  while (offset < 0) {
    frame--;
    offset += frames[frame]!.length;
  }
  return { frame, offset };
}

/** The bytes from `from` up to `to` (exclusive), copied into one buffer. */
function slice(frames: Buffer[], from: At, to: At): Buffer {
  const parts: Buffer[] = [];
  for (let f = from.frame; f < frames.length && (f < to.frame || (f === to.frame && to.offset > 0)); f++) {
    parts.push(frames[f]!.subarray(f === from.frame ? from.offset : 0, f === to.frame ? to.offset : undefined));
  }
  return Buffer.concat(parts);
}
