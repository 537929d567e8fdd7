// `relay --log-format text|json`: the relay's log lines on stderr. Text stays `relay: <message>`;
// json is one object per line: time, level, msg, and seq, channel, target, status, durationMs
// where they apply. Both go through one redaction (relay/shared/redact.ts): the admin token,
// channel tokens and signing secrets the relay knows of, URL credentials (user:password@),
// Authorization values, credential query values and path secrets never reach the output, whatever
// a message says, and a newline in a value cannot start a forged line.
// No pino: the seam is a function of a message and a few fields; JSON.stringify on one small
// object per line does the job, and pino's redaction works on field paths, not on values inside
// a message, which is the case that matters here.
import type { LogFields, RelayLog } from '../server/base/log';
import { redact, secretsPattern } from '../shared/redact';

export type LogFormat = 'text' | 'json';

export const LOG_FORMATS: readonly LogFormat[] = ['text', 'json'];

export interface RelayLogger {
  log: RelayLog;
  /** Adds values that must never be printed (a token, a secret): replaced by [redacted]. */
  redact(values: Iterable<string | undefined>): void;
}

export function relayLogger(format: LogFormat, write: (text: string) => void, now: () => number = Date.now): RelayLogger {
  const secrets = new Set<string>();
  let pattern: RegExp | undefined;
  const clean = (text: string) => redact(text, pattern);
  const log: RelayLog = (message, fields) => {
    const msg = clean(message);
    if (format === 'text') return write(`relay: ${msg}\n`);
    write(JSON.stringify(entry(msg, fields, now(), clean)) + '\n');
  };
  return {
    log,
    redact(values) {
      for (const v of values) if (v) secrets.add(v);
      pattern = secretsPattern(secrets);
    },
  };
}

function entry(msg: string, fields: LogFields | undefined, at: number, clean: (s: string) => string): Record<string, unknown> {
  const e: Record<string, unknown> = { time: new Date(at).toISOString(), level: fields?.level ?? levelOf(msg), msg };
  if (!fields) return e;
  if (fields.seq !== undefined) e.seq = fields.seq;
  if (fields.channel !== undefined) e.channel = clean(fields.channel);
  if (fields.target !== undefined) e.target = clean(fields.target);
  if (fields.status !== undefined) e.status = fields.status;
  if (fields.durationMs !== undefined) e.durationMs = fields.durationMs;
  return e;
}

/** Lines the relay already words as warnings keep that level without every caller saying so. */
function levelOf(msg: string): 'info' | 'warn' {
  return /^warning: /.test(msg) ? 'warn' : 'info';
}
