// A relay is not trusted: every field of every message it sends is checked before it is used
// (issue 36 item 3). A message without a delivery crashed `forward` (TypeError), and a seq that
// was a string, 1e300 or 2.5 became the resume point and went into the state file. One shape per
// message type; a message of a type this client does not know is no problem (a newer relay's: it
// is ignored, as before). The problem is one line, its values shown with control characters escaped.
import type { ServerMessage } from '../../src/core/relay/protocol';
import { escapeControls } from '../../src/core/text/controls';
import { CHANNEL_NAME_RE } from '../../src/core/relay/channelName';

/** A field's check, and what the field must be (for the line that says it is not). */
type Field = readonly [check: (v: unknown) => boolean, what: string];
type Shape = Readonly<Record<string, Field>>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const SEQ: Field = [(v) => Number.isSafeInteger(v) && (v as number) >= 0, 'a non-negative safe integer'];
const INT: Field = [(v) => Number.isSafeInteger(v), 'a safe integer'];
const STRING: Field = [(v) => typeof v === 'string', 'a string'];
const BOOLEAN: Field = [(v) => typeof v === 'boolean', 'true or false'];
const NUMBER: Field = [(v) => typeof v === 'number' && Number.isFinite(v), 'a finite number'];
const oneOf = (...values: string[]): Field => [(v) => values.includes(v as string), `one of ${values.join(', ')}`];
const optional = ([check, what]: Field): Field => [(v) => v === undefined || check(v), `${what} or absent`];
const shaped = (shape: Shape, what: string): Field => [(v) => problemIn(v, shape, '') === undefined, what];
const listOf = ([check]: Field, what: string): Field => [(v) => Array.isArray(v) && v.every(check), what];
const STRINGS: Field = [(v) => isObject(v) && Object.values(v).every((x) => typeof x === 'string'), 'an object of strings'];

const FORWARD_STATE: Shape = {
  target: STRING,
  status: oneOf('pending', 'ok', 'failed', 'skipped'), // skipped: a forwarder's filter left it out (ForwardStatus)
  lastStatus: optional(INT),
  attempts: SEQ,
  nextAttemptAt: optional(STRING),
};
const DELIVERY: Shape = {
  seq: SEQ,
  channel: STRING,
  receivedAt: STRING,
  verification: oneOf('verified', 'unverified', 'rejected'),
  reason: optional(STRING),
  event: optional(STRING),
  deliveryId: optional(STRING),
  size: SEQ,
  truncated: optional(shaped({ kept: SEQ, sha256: STRING }, 'an object of kept and sha256')),
  forward: listOf(shaped(FORWARD_STATE, ''), 'a list of forward states'),
  headers: optional(STRINGS),
  bodyBase64: optional(STRING),
  bodyFollows: optional(SEQ),
};
const ATTEMPT: Shape = {
  target: STRING,
  at: STRING,
  status: optional(INT),
  ok: BOOLEAN,
  durationMs: NUMBER,
  error: optional(STRING),
  replay: optional(BOOLEAN),
  retryAfter: optional(STRING),
};
/** A generation as the relay makes them (randomToken: base64url). */
const GENERATION = /^[A-Za-z0-9_-]{1,64}$/;
/** A forwarder names its state file after the scope: a channel name and a generation, nothing else. */
const SCOPE: Field = [
  (v) =>
    isObject(v) &&
    (v.kind === 'admin' ||
      (v.kind === 'channel' &&
        typeof v.channel === 'string' &&
        CHANNEL_NAME_RE.test(v.channel) &&
        (v.generation === undefined || (typeof v.generation === 'string' && GENERATION.test(v.generation))))),
  "{ kind: 'admin' } or { kind: 'channel', channel: a channel name, generation?: letters, digits, '_', '-' }",
];

/** The relay's identity goes into a line for a person and a file's content: printable, and short. */
const RELAY_IDENTITY: Field = [(v) => typeof v === 'string' && /^[\x21-\x7e]{1,200}$/.test(v), 'printable ASCII without spaces, at most 200 characters'];

const SHAPES: Readonly<Record<ServerMessage['type'], Shape>> = {
  hello: { lastSeq: SEQ, since: SEQ, scope: optional(SCOPE), relay: optional(RELAY_IDENTITY), sinceAhead: optional([(v) => v === true, 'true']) },
  'caught-up': { lastSeq: SEQ },
  delivery: { delivery: shaped(DELIVERY, 'a delivery') },
  replay: { delivery: shaped(DELIVERY, 'a delivery') },
  forward: { seq: SEQ, attempt: shaped(ATTEMPT, 'a forward attempt'), state: shaped(FORWARD_STATE, 'a forward state') },
  error: { error: STRING },
};

/** A value as the problem line shows it: JSON, cut short, control characters escaped. */
function shown(v: unknown): string {
  if (v === undefined) return 'nothing';
  const json = JSON.stringify(v) ?? String(v);
  return escapeControls(json.length > 40 ? `${json.slice(0, 40)}…` : json);
}

/** The first field of `o` that is not as `shape` says, as `<where>.<field> must be …, got …`. */
function problemIn(o: unknown, shape: Shape, where: string): string | undefined {
  if (!isObject(o)) return `${where || 'it'} must be an object, got ${shown(o)}`;
  for (const [key, [check, what]] of Object.entries(shape)) {
    // A body decoded from the frames (./serverMessage.ts attachBody) is a getter: reading it would encode it.
    if (Object.getOwnPropertyDescriptor(o, key)?.get) continue;
    const v = o[key];
    if (!check(v)) {
      // Say which field of a delivery: the one a reader would look for.
      if (key === 'delivery' && isObject(v)) return problemIn(v, DELIVERY, 'delivery');
      return `${where ? `${where}.` : ''}${key} must be ${what}, got ${shown(v)}`;
    }
  }
  return undefined;
}

/** What is wrong with a message from the relay (one line), or undefined when nothing is. */
export function serverMessageProblem(msg: unknown): string | undefined {
  if (!isObject(msg)) return `it must be an object, got ${shown(msg)}`;
  if (typeof msg.type !== 'string') return `its type must be a string, got ${shown(msg.type)}`;
  const shape = (SHAPES as Record<string, Shape | undefined>)[msg.type];
  return shape && problemIn(msg, shape, '');
}

/**
 * Whether a bad message leaves the ordered stream unsure (its hello, a delivery, or one whose
 * type cannot be told): the connection is made again rather than risk acknowledging past a
 * delivery never handled. A bad forward, caught-up, error or replay message is told and ignored.
 */
export function breaksTheStream(msg: unknown): boolean {
  const type = isObject(msg) ? msg.type : undefined;
  return !(type === 'forward' || type === 'caught-up' || type === 'error' || type === 'replay');
}
