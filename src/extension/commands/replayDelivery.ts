// Replay Delivery: sends a journaled delivery again, to the app that forwards its channel (the
// forward set-up's, posted by the editor byte-exact; any token may), else to the relay's own targets
// (POST /api/deliveries/<seq>/replay). `{ to }` (admin token) sends it to that URL through the relay.
// `{ resign: true }` (Replay Re-signed, offered for a delivery the relay rejected): signed again
// with the channel's secret — the one the editor holds for it, else asked for — or `{ resignSecret }`.
import * as vscode from 'vscode';
import { COMMANDS } from '../ids';
import { Cancelled } from '../errors';
import { asArgs, pickRelayDelivery } from './pickers';
import { withProgress } from '../ui/progress';
import type { CommandContext, CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.replayDelivery,
  async run(ctx, arg) {
    const relay = ctx.services.relay;
    const d = await pickRelayDelivery(ctx, arg, 'Replay Delivery');
    const args = asArgs<{ to: string; resign: boolean; resignSecret: string }>(arg);
    const given = args.to;
    const resignSecret = args.resignSecret ?? (args.resign ? await signingSecret(ctx, d.channel) : undefined);
    const resign = resignSecret !== undefined ? { resignSecret } : {};
    const { to, response } = await withProgress(`Replaying #${d.seq}${resignSecret !== undefined ? ' re-signed' : ''}…`, async () =>
      given ? { to: given, response: await relay.replay(d.seq, given, resign) } : relay.replayDelivery(d.seq, resign),
    );
    const last = response.attempts[response.attempts.length - 1];
    const ok = last?.ok ?? (typeof last?.status === 'number' && last.status >= 200 && last.status < 300);
    const where = to ?? last?.target;
    const text = `Replayed #${d.seq}${resignSecret !== undefined ? ' re-signed' : ''}${where ? ` to ${where}` : ''}: ${last ? (last.status ? `HTTP ${last.status}` : (last.error ?? 'no answer')) : 'no attempt'}`;
    if (ok) void vscode.window.showInformationMessage(text);
    else void vscode.window.showWarningMessage(text);
    await relay.reload();
    ctx.webhooks.refresh(); // a webhook row read from the journal follows the replay's outcome
    return { seq: d.seq, to: where, resigned: resignSecret !== undefined, ...response };
  },
};
export default command;

/** The channel's signing secret: the one the editor holds for it, else asked for (never shown or logged). */
async function signingSecret(ctx: CommandContext, channel: string): Promise<string> {
  const relay = ctx.services.relay;
  const held = await relay.heldSecretFor(relay.ingressUrl(channel));
  if (held) return held;
  const typed = await vscode.window.showInputBox({
    title: `Replay Re-signed: the secret of channel ${channel}`,
    prompt: "The webhook's secret as fixed (the channel's): the delivery is signed with it before it is sent to the app.",
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => (v ? undefined : 'Enter the secret'),
  });
  if (!typed) throw new Cancelled();
  return typed;
}
