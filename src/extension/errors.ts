// One error path for every command handler: details to the log, a short message with actions.
import * as vscode from 'vscode';
import { networkErrorCode } from '../core/client/errors';
import { isServiceError } from './contracts';
import { COMMANDS } from './ids';
import { log } from './log';

/** Thrown when the user dismisses a prompt: ends the command quietly. */
export class Cancelled extends Error {
  override name = 'Cancelled';
}

/** A failure the user can act on; its message is shown as is. */
export class UserError extends Error {
  override name = 'UserError';
}

export interface ErrorRecord {
  command: string;
  message: string;
  kind: 'auth' | 'network' | 'service' | 'user' | 'internal';
}

let lastError: ErrorRecord | undefined;
export function takeLastError(): ErrorRecord | undefined {
  const e = lastError;
  lastError = undefined;
  return e;
}

export function classify(err: unknown): ErrorRecord['kind'] {
  if (err instanceof UserError) return 'user';
  if (isServiceError(err)) {
    if (err.kind === 'http' && err.status === 401) return 'auth';
    if (err.kind === 'network' || err.kind === 'timeout') return 'network';
    return 'service';
  }
  if (networkErrorCode(err)) return 'network';
  return 'internal';
}

export function shortMessage(err: unknown, kind: ErrorRecord['kind']): string {
  switch (kind) {
    case 'auth':
      return 'The service rejected the token (401). Sign in again.';
    case 'network':
      return `Cannot reach the service or relay: ${(err as Error).message}`;
    case 'service': {
      const e = err as { status?: number; message: string };
      return e.status ? `The service answered ${e.status}: ${e.message}` : e.message;
    }
    default:
      return (err as Error)?.message ?? String(err);
  }
}

/** Wraps a command handler. The handler's value is returned; on failure the result is undefined. */
export function wrapCommand<A extends unknown[], R>(id: string, handler: (...args: A) => Promise<R> | R): (...args: A) => Promise<R | undefined> {
  return async (...args: A) => {
    try {
      return await handler(...args);
    } catch (err) {
      if (err instanceof Cancelled) return undefined;
      reportError(id, err);
      return undefined;
    }
  };
}

export function reportError(id: string, err: unknown): void {
  const kind = classify(err);
  const message = shortMessage(err, kind);
  lastError = { command: id, message, kind };
  log().error(`${id}: ${(err as Error)?.stack ?? String(err)}`);
  const actions = kind === 'auth' ? ['Sign In', 'Show Logs'] : ['Show Logs'];
  void vscode.window.showErrorMessage(message, ...actions).then((choice) => {
    if (choice === 'Sign In') void vscode.commands.executeCommand(COMMANDS.signIn);
    else if (choice === 'Show Logs') log().show(true);
  });
}
