// Sign Out: deletes the token from SecretStorage.
import * as vscode from 'vscode';
import { COMMANDS } from '../ids';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.signOut,
  async run(ctx) {
    await ctx.services.tokens.clear();
    ctx.services.invalidate();
    ctx.webhooks.refresh();
    void vscode.window.showInformationMessage('Signed out of the service.');
    return { signedIn: false };
  },
};
export default command;
