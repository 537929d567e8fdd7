// Copy as cURL: re-send command for a delivery; signature, tokens and secrets redacted.
import * as vscode from 'vscode';
import { buildCurl } from '../../core/tree';
import { COMMANDS } from '../ids';
import type { CommandModule } from './context';
import { rawDelivery } from './rawDelivery';

const command: CommandModule = {
  id: COMMANDS.copyAsCurl,
  async run(ctx, arg) {
    const raw = await rawDelivery(ctx, arg, 'Copy as cURL');
    const curl = buildCurl(raw.url, raw.headers, raw.body);
    await vscode.env.clipboard.writeText(curl);
    void vscode.window.showInformationMessage('cURL command copied (signature and secrets redacted).');
    return { curl };
  },
};
export default command;
