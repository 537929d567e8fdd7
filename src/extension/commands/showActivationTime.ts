// Show Activation Time: how long activate() took (measured with performance.now()).
import * as vscode from 'vscode';
import { activationMs } from '../activationTime';
import { COMMANDS } from '../ids';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.showActivationTime,
  run() {
    const ms = activationMs();
    void vscode.window.showInformationMessage(`Service Webhooks activated in ${ms.toFixed(1)} ms.`);
    return { activationMs: ms };
  },
};
export default command;
