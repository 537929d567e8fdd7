// Sign In: token via a password InputBox (or `{ token }` for automation), validated by listing webhooks.
import * as vscode from 'vscode';
import { repoKey } from '../../core/tree';
import { isServiceError } from '../contracts';
import { COMMANDS } from '../ids';
import { Cancelled, UserError } from '../errors';
import { log } from '../log';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.signIn,
  async run(ctx, arg) {
    let token = typeof arg === 'string' ? arg : (arg as { token?: string } | undefined)?.token;
    token ??= await vscode.window.showInputBox({
      title: 'Sign in to the service',
      prompt: 'Access token (stored in the OS keychain through SecretStorage)',
      password: true,
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() ? undefined : 'Enter a token'),
    });
    if (!token) throw new Cancelled();
    token = token.trim();
    const repos = await ctx.services.repositories();
    let validated = false;
    if (repos.length > 0) {
      const client = await ctx.services.client(token);
      try {
        await client.listWebhooks(repos[0]!);
        validated = true;
      } catch (err) {
        if (isServiceError(err) && err.kind === 'http' && err.status === 401) {
          throw new UserError('The service rejected this token (401). Nothing was stored.');
        }
        throw err;
      }
    }
    await ctx.services.tokens.set(token);
    ctx.services.invalidate();
    ctx.webhooks.refresh();
    log().info(validated ? `signed in (token validated on ${repoKey(repos[0]!)})` : 'signed in (not validated: no repository found)');
    void vscode.window.showInformationMessage(validated ? 'Signed in to the service.' : 'Token stored. It will be checked once a repository is found.');
    return { signedIn: true, validated };
  },
};
export default command;
