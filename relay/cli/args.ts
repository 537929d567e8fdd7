// Thin wrapper over node:util parseArgs that turns its errors into UsageError (exit 2).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError, type CliIO, type Command } from './io';

type Options = NonNullable<ParseArgsConfig['options']>;

export function parse<O extends Options>(argv: string[], options: O, allowPositionals = true) {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/\. To specify a positional.*$/s, '.'));
  }
}

/** Parses a port flag: an integer from 0 to 65535. */
export function port(value: string | undefined, fallback: number, flag = '--port'): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`${flag} must be an integer from 0 to 65535, got '${value}'`);
  return n;
}

/** Parses sizes such as `25mb`, `512kb`, `1048576`. */
export function size(value: string | undefined, fallback: number, flag: string): number {
  if (value === undefined) return fallback;
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb|k|mb|m|gb|g)?$/i.exec(value.trim());
  if (!m) throw new UsageError(`${flag} must be a size such as 25mb, 512kb or 1048576, got '${value}'`);
  const unit = (m[2] ?? 'b').toLowerCase()[0];
  const mult = unit === 'k' ? 1024 : unit === 'm' ? 1024 ** 2 : unit === 'g' ? 1024 ** 3 : 1;
  return Math.floor(Number(m[1]) * mult);
}

const DURATION_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 24 * 3_600_000 } as const;

/** 30d / 12h / 45m / 10s / 500ms → milliseconds. */
export function parseDuration(value: string, flag: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(value);
  if (!m) throw new UsageError(`${flag} must be a duration such as 30d, 12h or 45m, got '${value}'`);
  return Math.round(Number(m[1]) * DURATION_MS[m[2] as keyof typeof DURATION_MS]);
}

/** Parses 0,1m,5m,30m / 500ms / 2s / 1h into milliseconds. */
export function parseSchedule(value: string, flag = '--retry-schedule'): number[] {
  return value.split(',').map((part) => {
    const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(part);
    if (!m) throw new UsageError(`${flag} must be a list such as 0,1m,5m,30m, got '${value}'`);
    const mult = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 'ms') as 'ms'];
    return Math.round(Number(m[1]) * mult);
  });
}

/** A duration of at least 1 ms (a deadline). */
export function positiveDuration(value: string, flag: string): number {
  const ms = parseDuration(value, flag);
  if (ms < 1) throw new UsageError(`${flag} must be at least 1ms, got '${value}'`);
  return ms;
}

/** The values parseArgs infers for `options`: string, boolean or string[] (multiple), each optional. */
export type ParsedValues<O extends Options> = ReturnType<typeof parse<O>>['values'];

export interface CommandSpec<O extends Options> {
  /** Full help text printed by `service-hooks <cmd> --help` (the one-line summary is in relay/commandTable.ts). */
  help: string;
  options: O;
  /** Whether operands are taken (default false: any operand is a usage error). */
  positionals?: boolean;
  run(args: { values: ParsedValues<O>; positionals: string[] }, io: CliIO): Promise<number>;
}

/**
 * A subcommand from its options and its run: the arguments are parsed strictly (unknown options
 * and, unless `positionals`, operands are usage errors, exit 2) before `run` sees typed values.
 */
export function defineCommand<O extends Options>(spec: CommandSpec<O>): Command {
  return {
    help: spec.help,
    run: (argv, io) => {
      const { values, positionals } = parse(argv, spec.options, spec.positionals ?? false);
      return spec.run({ values, positionals }, io);
    },
  };
}
