// Error rows of the Webhooks view that act: a rejected token is a Sign In link, an unreachable
// service a Retry that names the address, a malformed base URL opens the setting.
import { baseUrlProblem } from '../core/input';
import { ROW_COMMANDS, type MessageNode } from '../core/tree';
import { settings } from './config';
import { OPEN_SETTINGS, errorKind, shortMessage } from './errors';
import { SETTINGS } from './ids';

export function problemRow(id: string, err: unknown): MessageNode {
  const kind = errorKind(err);
  const text = shortMessage(err, kind);
  const detail = (err as Error)?.message ?? String(err);
  switch (kind) {
    case 'auth':
    case 'signedOut':
      return { kind: 'message', id, text, detail, severity: 'error', problem: kind, action: { command: ROW_COMMANDS.signIn, title: 'Sign In' } };
    case 'network':
      return {
        kind: 'message',
        id,
        text: `${text} Retry`,
        detail: `${detail}\nThe view tries again by itself while it is visible.`,
        severity: 'error',
        problem: 'network',
        action: { command: ROW_COMMANDS.refresh, title: 'Retry' },
      };
    case 'user':
      return { kind: 'message', id, text, detail, severity: 'warning' };
    default:
      return { kind: 'message', id, text, detail, severity: 'error', problem: 'service' };
  }
}

/** A row saying serviceHooks.baseUrl is malformed, or undefined when it is usable. */
export function configProblemRow(): MessageNode | undefined {
  const problem = baseUrlProblem(settings().baseUrl);
  if (!problem) return undefined;
  return {
    kind: 'message',
    id: 'config:baseUrl',
    text: problem,
    severity: 'error',
    problem: 'config',
    action: { command: OPEN_SETTINGS, title: 'Open Settings', arguments: [SETTINGS.baseUrl] },
  };
}
