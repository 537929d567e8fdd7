// Replay Delivery: sends a journaled delivery again, to the app that forwards its channel (the
// forward set-up's, posted by the editor byte-exact; any token may), else to the relay's own targets
// (POST /api/deliveries/<seq>/replay). `{ to }` (admin token) sends it to that URL through the relay.
import * as vscode from 'vscode';
import { COMMANDS } from '../ids';
import { asArgs, pickRelayDelivery } from '../pickers';
import { withProgress } from '../progress';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.replayDelivery,
  async run(ctx, arg) {
    const relay = ctx.services.relay;
    const d = await pickRelayDelivery(ctx, arg, 'Replay Delivery');
    const given = asArgs<{ to: string }>(arg).to;
    const { to, response } = await withProgress(`Replaying #${d.seq}…`, async () =>
      given ? { to: given, response: await relay.replay(d.seq, given) } : relay.replayDelivery(d.seq),
    );
    const last = response.attempts[response.attempts.length - 1];
    const ok = last?.ok ?? (typeof last?.status === 'number' && last.status >= 200 && last.status < 300);
    const where = to ?? last?.target;
    const text = `Replayed #${d.seq}${where ? ` to ${where}` : ''}: ${last ? (last.status ? `HTTP ${last.status}` : (last.error ?? 'no answer')) : 'no attempt'}`;
    if (ok) void vscode.window.showInformationMessage(text);
    else void vscode.window.showWarningMessage(text);
    await relay.reload();
    return { seq: d.seq, to: where, ...response };
  },
};
export default command;
