// Replay Delivery: POST /api/deliveries/<seq>/replay on the relay, to the forward URL (or `{ to }`).
import * as vscode from 'vscode';
import { settings } from '../config';
import { COMMANDS } from '../ids';
import { asArgs, pickRelayDelivery } from '../pickers';
import { withProgress } from '../progress';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.replayDelivery,
  async run(ctx, arg) {
    const d = await pickRelayDelivery(ctx, arg, 'Replay Delivery');
    const to = asArgs<{ to: string }>(arg).to ?? (settings().relayForwardUrl || undefined);
    const result = await withProgress(`Replaying #${d.seq}${to ? ` to ${to}` : ''}…`, () => ctx.services.relay.replay(d.seq, to));
    const last = result.attempts[result.attempts.length - 1];
    const ok = last?.ok ?? (typeof last?.status === 'number' && last.status >= 200 && last.status < 300);
    const text = `Replayed #${d.seq}${to ? ` to ${to}` : ''}: ${last ? (last.status ? `HTTP ${last.status}` : last.error ?? 'no answer') : 'no attempt'}`;
    if (ok) void vscode.window.showInformationMessage(text);
    else void vscode.window.showWarningMessage(text);
    await ctx.services.relay.reload();
    return { seq: d.seq, ...result };
  },
};
export default command;
