// Registers every command through the one error path (errors.ts wrapCommand).
import * as vscode from 'vscode';
import { wrapCommand } from '../errors';
import addWebhook from './addWebhook';
import type { CommandContext, CommandModule } from './context';
import copyAsCurl from './copyAsCurl';
import createSecret from './createSecret';
import deleteWebhook from './deleteWebhook';
import editEvents from './editEvents';
import explainSignature from './explainSignature';
import fixAllWorkflowNames from './fixAllWorkflowNames';
import importIssues from './importIssues';
import loadMore from './loadMore';
import openDelivery from './openDelivery';
import pingWebhook from './pingWebhook';
import refresh from './refresh';
import replayDelivery from './replayDelivery';
import retryAllFailed from './retryAllFailed';
import retryDelivery from './retryDelivery';
import setUpRunner from './setUpRunner';
import showActivationTime from './showActivationTime';
import showLogs from './showLogs';
import signIn from './signIn';
import signOut from './signOut';
import startRelay from './startRelay';
import stopRelay from './stopRelay';

/** fixAllInFile is registered by diagnostics.ts, next to its code action. */
export const COMMAND_MODULES: readonly CommandModule[] = [
  signIn, signOut, addWebhook, editEvents, deleteWebhook, pingWebhook, retryDelivery, retryAllFailed,
  replayDelivery, openDelivery, explainSignature, copyAsCurl, startRelay, stopRelay, importIssues,
  createSecret, setUpRunner, fixAllWorkflowNames, refresh, showLogs, showActivationTime, loadMore,
];

export function registerCommands(context: vscode.ExtensionContext, ctx: () => CommandContext): void {
  for (const m of COMMAND_MODULES) {
    context.subscriptions.push(vscode.commands.registerCommand(m.id, wrapCommand(m.id, (...args: unknown[]) => m.run(ctx(), ...args))));
  }
}
