// Explain Signature: the signature doctor on a delivery's raw body, header and a secret you enter.
// A relay row needs no secret: the relay checked the signature with the channel's secret when the
// delivery came in, so its verdict is shown (and for a rejected one, its reason and the findings of
// the doctor it ran with that secret). A secret is asked only when the relay had none to check with.
import * as vscode from 'vscode';
import { SIGNATURE_HEADER } from '../../core/signing';
import { sentence } from '../../core/tree';
import { COMMANDS } from '../ids';
import { Cancelled } from '../errors';
import { explainSignature } from '../deps';
import { log } from '../log';
import { asArgs } from './pickers';
import type { CommandModule } from './context';
import { header, rawDelivery, type RawDelivery } from './rawDelivery';

/** The relay's verdict as the command's result, or undefined when it had no secret to check with. */
function relayVerdict(relay: NonNullable<RawDelivery['relay']>): { ok: boolean; findings: string[]; verdict: string } | undefined {
  if (relay.verification === 'verified') {
    return {
      ok: true,
      verdict: 'verified',
      findings: [`The relay checked ${SIGNATURE_HEADER} with the secret of channel ${relay.channel} when the delivery came in: it matches.`],
    };
  }
  if (relay.verification === 'rejected') {
    const why = relay.reason ? sentence(relay.reason) : "The signature did not match the channel's secret.";
    return { ok: false, verdict: 'rejected', findings: [why, ...(relay.explanation ?? []).map(sentence)] };
  }
  return undefined;
}

const command: CommandModule = {
  id: COMMANDS.explainSignature,
  async run(ctx, arg) {
    const raw = await rawDelivery(ctx, arg, 'Explain Signature');
    const modal = !asArgs(arg).seq && !asArgs(arg).deliveryId;
    let secrets = asArgs<{ secrets: string[] }>(arg).secrets;
    const verdict = !secrets && raw.relay ? relayVerdict(raw.relay) : undefined;
    if (verdict && raw.relay) {
      log().info(`explain signature (relay #${raw.relay.seq}): the relay's verdict: ${verdict.verdict}; ${verdict.findings.join(' ')}`);
      if (verdict.ok)
        void vscode.window.showInformationMessage(`The relay verified delivery #${raw.relay.seq}: the signature matches the channel's secret.`, {
          modal,
          detail: verdict.findings.join('\n'),
        });
      else
        void vscode.window.showWarningMessage(`The relay rejected delivery #${raw.relay.seq}: ${verdict.findings[0]}`, {
          modal,
          detail: verdict.findings.slice(1).join('\n'),
        });
      return { ...verdict, source: 'relay' };
    }
    if (!secrets) {
      const title = raw.relay
        ? `Explain Signature: channel ${raw.relay.channel} has no secret on the relay; the secret to check against`
        : 'Explain Signature: the webhook secret to check against';
      const s = await vscode.window.showInputBox({ title, password: true, ignoreFocusOut: true });
      if (s === undefined) throw new Cancelled();
      secrets = [s];
    }
    const result = await explainSignature({ body: raw.body, header: header(raw.headers, SIGNATURE_HEADER), secrets });
    const findings = result.findings.map(sentence);
    log().info(`explain signature (${raw.source}): ${result.ok ? 'match' : 'mismatch'}; ${findings.join(' ')}`);
    if (result.ok) void vscode.window.showInformationMessage('The signature matches this secret.', { modal, detail: findings.join('\n') });
    else void vscode.window.showWarningMessage('The signature does not match this secret.', { modal, detail: findings.join('\n') });
    return { ...result, findings, source: raw.source };
  },
};
export default command;
