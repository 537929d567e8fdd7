// Sign In: token via a password InputBox (or `{ token }` for automation), validated by listing
// webhooks, stored in SecretStorage for the configured base URL only.
import * as vscode from 'vscode';
import { repoKey } from '../../core/tree';
import { settings } from '../config';
import { isServiceError } from '../contracts';
import { COMMANDS } from '../ids';
import { Cancelled, UserError, retryWith } from '../errors';
import { log } from '../log';
import { withProgress } from '../ui/progress';
import { checkBaseUrl } from '../services';
import type { CommandContext, CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.signIn,
  async run(ctx, arg) {
    const { baseUrl } = settings();
    checkBaseUrl(baseUrl);
    let token = typeof arg === 'string' ? arg : (arg as { token?: string } | undefined)?.token;
    if (token === undefined && (await ctx.services.adoptLegacyToken(baseUrl))) return finish(ctx, baseUrl, false);
    token ??= await vscode.window.showInputBox({
      title: `Sign in to the service at ${baseUrl}`,
      prompt: 'Access token (stored in the OS keychain through SecretStorage, for this address only)',
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
        await withProgress(`Signing in to ${baseUrl}…`, () => client.listWebhooks(repos[0]!), { cancellable: true });
        validated = true;
      } catch (err) {
        if (isServiceError(err) && err.kind === 'http' && err.status === 401) {
          throw new UserError('The service rejected this token (401). Nothing was stored.', [{ title: 'Sign In', command: COMMANDS.signIn }]);
        }
        // Retry signs in with the token already typed (in memory only, for the retry): not asked again.
        throw retryWith(err, { token });
      }
    }
    await ctx.services.tokens.set(baseUrl, token);
    log().info(
      validated ? `signed in to ${baseUrl} (token validated on ${repoKey(repos[0]!)})` : `signed in to ${baseUrl} (not validated: no repository found)`,
    );
    return finish(ctx, baseUrl, validated);
  },
};
export default command;

function finish(ctx: CommandContext, baseUrl: string, validated: boolean): { signedIn: true; validated: boolean } {
  ctx.services.invalidate();
  ctx.webhooks.refresh();
  void vscode.window.showInformationMessage(
    validated ? 'Signed in to the service.' : `Token stored for ${baseUrl}. It will be checked once a repository is found.`,
  );
  return { signedIn: true, validated };
}
