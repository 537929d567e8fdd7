// Copy as cURL: re-send command for a delivery; signature, tokens and secrets redacted. The
// message says how to re-sign it, and offers that command: the body sent by `service-hooks send`
// with the secret from $WEBHOOK_SECRET (never on the clipboard).
import * as vscode from 'vscode';
import { buildCurl, buildResignCommand, isPrintableBody } from '../../core/curl';
import { EVENT_HEADER } from '../../core/signing';
import { COMMANDS } from '../ids';
import type { CommandModule } from './context';
import { header, rawDelivery } from './rawDelivery';

const command: CommandModule = {
  id: COMMANDS.copyAsCurl,
  async run(ctx, arg) {
    const raw = await rawDelivery(ctx, arg, 'Copy as cURL');
    const curl = buildCurl(raw.url, raw.headers, raw.body);
    await vscode.env.clipboard.writeText(curl);
    const binary = !isPrintableBody(raw.body);
    const note = binary
      ? ' The body is not printable text (not UTF-8, or control characters), so the command writes its exact bytes with printf and pipes them to curl.'
      : '';
    const resign = buildResignCommand(raw.url, header(raw.headers, EVENT_HEADER) ?? 'ping', raw.body);
    const COPY = 'Copy Re-signing Command';
    void vscode.window
      .showInformationMessage(
        `cURL command copied (signature and secrets redacted: the receiver will refuse it if it verifies signatures).${note} To re-sign, send the same bytes with service-hooks send and the secret in $WEBHOOK_SECRET.`,
        COPY,
      )
      .then((c) => (c === COPY ? vscode.env.clipboard.writeText(resign) : undefined));
    return { curl, binary, resign };
  },
};
export default command;
