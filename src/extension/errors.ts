// One error path for every command handler: details to the log, a short message with actions.
import * as vscode from 'vscode';
import { networkErrorCode, networkErrorText } from '../core/client/errors';
import { settings } from './config';
import { isServiceError } from './contracts';
import { COMMANDS } from './ids';
import { log } from './log';

/** Thrown when the user dismisses a prompt: ends the command quietly. */
export class Cancelled extends Error {
  override name = 'Cancelled';
}

/** A button on an error message: a command to run. */
export interface ErrorAction {
  title: string;
  command: string;
  arguments?: readonly unknown[];
}

/** A failure the user can act on; its message is shown as is, with its actions as buttons. */
export class UserError extends Error {
  override name = 'UserError';
  constructor(
    message: string,
    readonly actions: readonly ErrorAction[] = [],
  ) {
    super(message);
  }
}

/** A command needs the token and none is stored. Not a rejected token: no HTTP status. */
export class NotSignedInError extends Error {
  override name = 'NotSignedInError';
  constructor() {
    super('You are not signed in to the service.');
  }
}

export const OPEN_SETTINGS = 'workbench.action.openSettings';

export interface ErrorRecord {
  command: string;
  message: string;
  kind: 'auth' | 'signedOut' | 'network' | 'service' | 'user' | 'internal';
}

let lastError: ErrorRecord | undefined;
export function takeLastError(): ErrorRecord | undefined {
  const e = lastError;
  lastError = undefined;
  return e;
}

export function errorKind(err: unknown): ErrorRecord['kind'] {
  if (err instanceof UserError) return 'user';
  if (err instanceof NotSignedInError) return 'signedOut';
  if (isServiceError(err)) {
    if (err.kind === 'http' && err.status === 401) return 'auth';
    if (err.kind === 'network' || err.kind === 'timeout') return 'network';
    return 'service';
  }
  if (networkErrorCode(err)) return 'network';
  return 'internal';
}

/** Which party a network failure is about: the service client's errors are typed; anything else is the relay. */
function unreachable(err: unknown): string {
  if (isServiceError(err)) {
    const why = err.kind === 'timeout' ? 'no answer in time' : networkErrorText((err as { code?: string }).code);
    return `Cannot reach the service at ${settings().baseUrl} (${why}).`;
  }
  return `Cannot reach the relay (${networkErrorText(networkErrorCode(err))}).`;
}

export function shortMessage(err: unknown, kind: ErrorRecord['kind'] = errorKind(err)): string {
  switch (kind) {
    case 'auth':
      return 'The service rejected the token (401). Sign in again.';
    case 'signedOut':
      return 'You are not signed in to the service.';
    case 'network':
      return unreachable(err);
    case 'service': {
      const e = err as { status?: number; message: string };
      return e.status ? `The service answered ${e.status}: ${e.message}` : e.message;
    }
    default:
      return (err as Error)?.message ?? String(err);
  }
}

/** The buttons an error offers; `retry` re-runs the failed command with its arguments. */
export function errorActions(err: unknown, kind: ErrorRecord['kind'], retry?: ErrorAction): ErrorAction[] {
  const signIn = { title: 'Sign In', command: COMMANDS.signIn };
  switch (kind) {
    case 'auth':
    case 'signedOut':
      return [signIn];
    case 'network':
      return retry ? [{ ...retry, title: 'Retry' }] : [];
    case 'user':
      return [...(err as UserError).actions];
    default:
      return [];
  }
}

/**
 * What Retry re-sends for a failure: the values the user already entered (a typed token, a secret's
 * name and value), kept in memory only, by the error object, until the message goes away.
 * Without it, Retry re-runs the command with the arguments it was run with (and asks again).
 */
const retryArguments = new WeakMap<object, readonly unknown[]>();
export function retryWith<E>(err: E, ...args: unknown[]): E {
  if (typeof err === 'object' && err !== null) retryArguments.set(err, args);
  return err;
}

/** Wraps a command handler. The handler's value is returned; on failure the result is undefined. */
export function wrapCommand<A extends unknown[], R>(id: string, handler: (...args: A) => Promise<R> | R): (...args: A) => Promise<R | undefined> {
  return async (...args: A) => {
    try {
      return await handler(...args);
    } catch (err) {
      if (err instanceof Cancelled) return undefined;
      const again = typeof err === 'object' && err !== null ? retryArguments.get(err) : undefined;
      reportError(id, err, { title: 'Retry', command: id, arguments: again ?? args });
      return undefined;
    }
  };
}

export function reportError(id: string, err: unknown, retry?: ErrorAction): void {
  const kind = errorKind(err);
  const message = shortMessage(err, kind);
  lastError = { command: id, message, kind };
  // Expected outcomes (a choice the user can fix, not signed in) are not faults: no stack.
  if (kind === 'user' || kind === 'signedOut') log().info(`${id}: ${message}`);
  else log().error(`${id}: ${(err as Error)?.stack ?? String(err)}`);
  const actions = errorActions(err, kind, retry);
  const titles = [...actions.map((a) => a.title), 'Show Logs'];
  const show = kind === 'user' || kind === 'signedOut' ? vscode.window.showWarningMessage : vscode.window.showErrorMessage;
  void show(message, ...titles).then((choice) => {
    const action = actions.find((a) => a.title === choice);
    if (action) void vscode.commands.executeCommand(action.command, ...(action.arguments ?? []));
    else if (choice === 'Show Logs') log().show(true);
  });
}
