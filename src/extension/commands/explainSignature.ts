// Explain Signature: the signature doctor on a delivery's raw body, header and a secret you enter.
import * as vscode from 'vscode';
import { SIGNATURE_HEADER } from '../../core/signing';
import { sentence } from '../../core/tree';
import { COMMANDS } from '../ids';
import { Cancelled } from '../errors';
import { explainSignature } from '../deps';
import { log } from '../log';
import { asArgs } from '../pickers';
import type { CommandModule } from './context';
import { header, rawDelivery } from './rawDelivery';

const command: CommandModule = {
  id: COMMANDS.explainSignature,
  async run(ctx, arg) {
    const raw = await rawDelivery(ctx, arg, 'Explain Signature');
    let secrets = asArgs<{ secrets: string[] }>(arg).secrets;
    if (!secrets) {
      const s = await vscode.window.showInputBox({ title: 'Explain Signature: the webhook secret to check against', password: true, ignoreFocusOut: true });
      if (s === undefined) throw new Cancelled();
      secrets = [s];
    }
    const result = await explainSignature({ body: raw.body, header: header(raw.headers, SIGNATURE_HEADER), secrets });
    const findings = result.findings.map(sentence);
    log().info(`explain signature (${raw.source}): ${result.ok ? 'match' : 'mismatch'}; ${findings.join(' ')}`);
    const modal = !asArgs(arg).seq && !asArgs(arg).deliveryId;
    if (result.ok) void vscode.window.showInformationMessage('The signature matches this secret.', { modal, detail: findings.join('\n') });
    else void vscode.window.showWarningMessage('The signature does not match this secret.', { modal, detail: findings.join('\n') });
    return { ...result, findings };
  },
};
export default command;
