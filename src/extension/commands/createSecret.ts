// Create CI Secret: validated name, password input for the value, pick for `protected`.
import * as vscode from 'vscode';
import { validateSecretName } from '../../core/input';
import { repoKey } from '../../core/tree';
import { COMMANDS } from '../ids';
import { Cancelled, UserError, retryWith } from '../errors';
import { asArgs, pickRepo } from './pickers';
import { withProgress } from '../ui/progress';
import type { CommandModule } from './context';

export const validateSecretValue = (v: string): string | undefined => (v === '' ? 'Enter a value' : undefined);

const command: CommandModule = {
  id: COMMANDS.createSecret,
  async run(ctx, arg) {
    const args = asArgs<{ name: string; value: string; protected: boolean }>(arg);
    const repo = await pickRepo(ctx, arg);
    const name =
      args.name ?? (await vscode.window.showInputBox({ title: 'Create CI Secret (1/3): name', validateInput: validateSecretName, ignoreFocusOut: true }));
    if (name === undefined) throw new Cancelled();
    const problem = validateSecretName(name);
    if (problem) throw new UserError(`Secret name: ${problem}`);
    const value =
      args.value ??
      (await vscode.window.showInputBox({
        title: `Create CI Secret (2/3): value of ${name}`,
        password: true,
        ignoreFocusOut: true,
        validateInput: validateSecretValue,
      }));
    if (value === undefined) throw new Cancelled();
    if (validateSecretValue(value)) throw new UserError(`Secret value: ${validateSecretValue(value)}`);
    let prot = args.protected;
    if (prot === undefined) {
      const pick = await vscode.window.showQuickPick(
        [
          { label: 'Not protected', value: false },
          { label: 'Protected', description: 'only for protected branches', value: true },
        ],
        { title: 'Create CI Secret (3/3): protection' },
      );
      if (!pick) throw new Cancelled();
      prot = pick.value;
    }
    const client = await ctx.services.client();
    try {
      await withProgress(`Creating CI secret ${name} in ${repoKey(repo)}…`, () => client.createSecret(repo, { name, value, protected: prot }));
    } catch (err) {
      // Retry sends what was entered (the value in memory only, for the retry): no step is asked again.
      throw retryWith(err, { repo: repoKey(repo), name, value, protected: prot });
    }
    void vscode.window.showInformationMessage(`CI secret ${name} created${prot ? ' (protected)' : ''}.`);
    return { name, protected: prot };
  },
};
export default command;
