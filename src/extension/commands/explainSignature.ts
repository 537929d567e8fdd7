// Explain Signature: the signature doctor on a delivery's raw body, header and a secret you enter.
import * as vscode from 'vscode';
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
    const result = await explainSignature({ body: raw.body, header: header(raw.headers, 'X-Service-Signature'), secrets });
    log().info(`explain signature (${raw.source}): ${result.ok ? 'ok' : 'mismatch'}; ${result.findings.join(' | ')}`);
    const text = result.ok ? 'The signature matches this secret.' : 'The signature does not match.';
    void vscode.window.showInformationMessage(text, { modal: !asArgs(arg).seq && !asArgs(arg).deliveryId, detail: result.findings.join('\n') });
    return result;
  },
};
export default command;
