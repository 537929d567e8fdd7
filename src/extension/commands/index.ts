// Registers every command through the one error path (errors.ts wrapCommand).
//
// Every command takes a tree row as its argument (context menus, inline actions) or nothing (the
// palette asks with QuickPicks). For automation (the integration suite, keybindings) they also take
// a plain object; a command's return value is its result, undefined when it failed or was cancelled.
//   signIn            { token } | token string
//   addWebhook        { repo: 'owner/repo', url, events: string[], secret: 'generate' | 'none' | <secret> }
//   editEvents        { webhookId, events }
//   rotateWebhookSecret { webhookId, graceMs? }              (returns { channel, shared, dropped?: Promise })
//   deleteWebhook     { webhookId, confirm: true }            (confirm skips the modal; from rows: every selected webhook)
//   pingWebhook       { webhookId }
//   sendSampleEvent   { webhookId | url, event, secret? }     (secret '' sends unsigned; none: the editor's, else asked, not stored)
//   retryDelivery     { webhookId, deliveryId }
//   retryAllFailed    { webhookId, confirm: true }            (none: asks which webhook; confirm skips the count's modal)
//   replayDelivery    { seq, to? } | { deliveryId }           (default: the app of the channel's set-up, else the relay's targets)
//   openDelivery      { webhookId, deliveryId } | { seq }
//   explainSignature  ({ webhookId, deliveryId } | { seq }) & { secrets: string[] }
//   copyAsCurl        { webhookId, deliveryId } | { seq }
//   importIssues      { file, repo, chunkSize? }
//   createSecret      { repo, name, value, protected }
//   setUpRunner       { token, execute? }                     (execute: false types without running)
//   connectRelay      { address, token, then? }               (token kept in SecretStorage; then: 'forward' goes on into Forward)
//   disconnectRelay   { confirm? }                            (confirm: true asks first; set-ups on the relay always warn, unless { force: true })
//   stopRelay         { confirm? }                            (confirm: true asks before stopping a relay started here)
//   copySigningSecret { channel? } | a set-up row             (the secret to the clipboard)
//   changeRelayPort   { port }
//   retryPending      { channel? }                            (the relay in use; every channel when absent)
//   forwardToLocalApp { repo, events, to } | { to }           (the relay in use; a channel token: only { to })
//   stopForwarding    { channel, deleteBoth? }                (deleteBoth skips the question)
//   loadMore          a "Load more…" row | { webhookId }
//   fixAllInFile      a file Uri (none: the active editor), then { confirm: true } skips the count's modal
//   fixAllWorkflowNames { confirm: true }                    (skips the count's modal; the files are saved)
//   portWorkflows     nothing; returns { report, markdown, html, files, renames, decisions, portable, … }
import * as vscode from 'vscode';
import { wrapCommand } from '../errors';
import { checkTrust } from '../trust/trust';
import addWebhook from './addWebhook';
import type { CommandContext, CommandModule } from './context';
import copyAsCurl from './copyAsCurl';
import createSecret from './createSecret';
import deleteWebhook from './deleteWebhook';
import editEvents from './editEvents';
import explainSignature from './explainSignature';
import fixAllInFile from './fixAllInFile';
import fixAllWorkflowNames from './fixAllWorkflowNames';
import importIssues from './importIssues';
import loadMore from './loadMore';
import openDelivery from './openDelivery';
import pingWebhook from './pingWebhook';
import sendSampleEvent from './sendSampleEvent';
import portWorkflows from './portWorkflows';
import refresh from './refresh';
import replayDelivery from './replayDelivery';
import retryAllFailed from './retryAllFailed';
import rotateWebhookSecret from './rotateWebhookSecret';
import retryDelivery from './retryDelivery';
import setUpRunner from './setUpRunner';
import showActivationTime from './showActivationTime';
import showLogs from './showLogs';
import signIn from './signIn';
import signOut from './signOut';
import startRelay from './startRelay';
import stopRelay from './stopRelay';
import connectRelay from './connectRelay';
import disconnectRelay from './disconnectRelay';
import retryPending from './retryPending';
import forwardToLocalApp from './forwardToLocalApp';
import stopForwarding from './stopForwarding';
import relayMenu from './relayMenu';
import copySigningSecret from './copySigningSecret';
import changeRelayPort from './changeRelayPort';

export const COMMAND_MODULES: readonly CommandModule[] = [
  signIn,
  signOut,
  addWebhook,
  editEvents,
  deleteWebhook,
  pingWebhook,
  retryDelivery,
  retryAllFailed,
  replayDelivery,
  openDelivery,
  explainSignature,
  copyAsCurl,
  startRelay,
  stopRelay,
  connectRelay,
  disconnectRelay,
  retryPending,
  forwardToLocalApp,
  stopForwarding,
  importIssues,
  createSecret,
  setUpRunner,
  fixAllWorkflowNames,
  fixAllInFile,
  refresh,
  showLogs,
  showActivationTime,
  loadMore,
  portWorkflows,
  relayMenu,
  copySigningSecret,
  changeRelayPort,
  rotateWebhookSecret,
  sendSampleEvent,
];

export function registerCommands(context: vscode.ExtensionContext, ctx: () => CommandContext): void {
  for (const m of COMMAND_MODULES) {
    context.subscriptions.push(
      vscode.commands.registerCommand(
        m.id,
        wrapCommand(m.id, (...args: unknown[]) => {
          checkTrust(m.id); // Restricted Mode: off with a message that says why (trust/trustTable.ts)
          return m.run(ctx(), ...args);
        }),
      ),
    );
  }
}
