// Progress for every network wait. A cancellable wait is one whose request only reads: cancelling
// stops waiting for it (its answer is ignored), and the command ends quietly. Writes are not offered
// a Cancel button, since the service may have acted on them already.
import * as vscode from 'vscode';
import { Cancelled } from '../errors';

export interface ProgressOptions {
  /** Offer Cancel (reads only). */
  cancellable?: boolean;
  /** 'notification' (default) for a command the user ran; 'window' (status bar) for a light wait. */
  location?: 'notification' | 'window';
}

export function withProgress<T>(title: string, task: () => Promise<T>, opts: ProgressOptions = {}): Promise<T> {
  const location = opts.location === 'window' ? vscode.ProgressLocation.Window : vscode.ProgressLocation.Notification;
  return Promise.resolve(
    vscode.window.withProgress({ location, title, cancellable: opts.cancellable === true }, (_progress, cancel) => {
      const work = task();
      if (!opts.cancellable) return work;
      return new Promise<T>((resolve, reject) => {
        const sub = cancel.onCancellationRequested(() => reject(new Cancelled()));
        work.then(resolve, reject).finally(() => sub.dispose());
      });
    }),
  );
}
