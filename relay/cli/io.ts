// What every CLI command receives: its streams and environment, passed in so tests can drive it.
import { EXIT_PORT_IN_USE } from '../../src/core/relay/ready';
export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Resolves when the user asks the process to stop (SIGINT/SIGTERM). */
  stopSignal: AbortSignal;
}

/**
 * Exit codes of every subcommand: 0 ok, 1 failure or finding, 2 usage error; `relay` also exits 3
 * when another relay holds its data folder (so the editor can say so instead of "failed").
 */
export const EXIT = { ok: 0, failure: 1, usage: 2, dataDirLocked: 3, portInUse: EXIT_PORT_IN_USE } as const;

/** Thrown by argument parsing; the dispatcher prints it with the command's help and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** True for a UsageError from any bundle (each command is its own bundle in dist/, so not instanceof). */
export function isUsageError(err: unknown): err is UsageError {
  return err instanceof Error && err.name === 'UsageError';
}

/** A subcommand module's default export; its one-line summary lives in the table (relay/commandTable.ts). */
export interface Command {
  /** Full help text printed by `service-hooks <cmd> --help`. */
  help: string;
  run(argv: string[], io: CliIO): Promise<number>;
}
