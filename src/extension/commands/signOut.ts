// Sign Out: deletes the token of the configured base URL from SecretStorage.
import * as vscode from 'vscode';
import { settings } from '../config';
import { COMMANDS } from '../ids';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.signOut,
  async run(ctx) {
    await ctx.services.tokens.clear(settings().baseUrl);
    ctx.services.invalidate();
    ctx.webhooks.refresh();
    void vscode.window.showInformationMessage('Signed out of the service.');
    return { signedIn: false };
  },
};
export default command;
