// Activation: registers everything synchronously, touches no network, loads heavy modules lazily.
import { join } from 'node:path';
import * as vscode from 'vscode';
import { recordActivationTime } from './activationTime';
import { registerAgentTools, type AgentToolsApi } from './agentTools/register';
import { registerCommands } from './commands';
import type { CommandContext } from './commands/context';
import { DeliveryDocuments } from './webhooks/deliveryDocument';
import { registerDiagnostics, type WorkflowDiagnostics } from './lint/diagnostics';
import { takeLastError, type ErrorRecord } from './errors';
import { COMMANDS, CONTEXT, DELIVERY_SCHEME, SETTINGS, VIEWS } from './ids';
import { disposeLog, log } from './log';
import { RelayManager } from './relay/relayManager';
import { RelayTree } from './relay/relayTree';
import { Services } from './services';
import { TokenStore } from './storage/tokenStore';
import { WebhooksTree } from './webhooks/webhooksTree';
import { SerialState } from './storage/serialState';
import { whenTrusted } from './trust/trust';
import { registerWebhooksView } from './webhooks/webhooksView';
import { registerWalkthrough } from './walkthrough';
import { registerWorkflowContext } from './lint/workflowFiles';

/** Returned from activate(): used by the integration suite; not a stable public API. */
export interface ServiceHooksApi {
  activationMs: number;
  relayDataDir: string;
  commandContext: CommandContext;
  diagnostics: WorkflowDiagnostics;
  takeLastError(): ErrorRecord | undefined;
  agentTools: AgentToolsApi;
}

export function activate(context: vscode.ExtensionContext): ServiceHooksApi {
  const t0 = performance.now();
  const relayDataDir = join(context.globalStorageUri.fsPath, 'relay');
  const tokens = new TokenStore(context.secrets);
  // Every globalState write goes through this one queue: concurrent writes lose values (serialState.ts).
  const globalState = new SerialState(context.globalState);
  const relay = new RelayManager({ extensionPath: context.extensionPath, dataDir: relayDataDir, secrets: context.secrets, globalState });
  const services = new Services(context, tokens, relay);
  const webhooks = new WebhooksTree(services, context.extensionUri);
  const relayTree = new RelayTree(relay, context.extensionUri);
  const documents = new DeliveryDocuments(services, relay);
  const ctx: CommandContext = { services, webhooks, relayTree, documents, extension: context, globalState };

  void vscode.commands.executeCommand('setContext', CONTEXT.relayRunning, false);
  context.subscriptions.push(
    relay,
    tokens,
    webhooks,
    relayTree,
    vscode.window.createTreeView(VIEWS.relay, { treeDataProvider: relayTree }),
    vscode.workspace.registerTextDocumentContentProvider(DELIVERY_SCHEME, documents),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!vscode.workspace.isTrusted) return; // Restricted Mode: the relay stays off (trust/trust.ts)
      if (e.affectsConfiguration(SETTINGS.relayPort)) void relay.probe({ force: true });
      if (e.affectsConfiguration(SETTINGS.relayForwardUrl)) void relay.forwardUrlChanged().catch((err: Error) => log().warn(`relay: ${err.message}`));
    }),
    { dispose: disposeLog },
  );
  ctx.webhooksView = registerWebhooksView(context, webhooks, services);
  registerCommands(context, () => ctx);
  const agentTools = registerAgentTools(context, () => ctx);
  registerWalkthrough(context, globalState);
  const diagnostics = registerDiagnostics(context);
  registerWorkflowContext(context);
  relay.showStatusBar();
  // The relay connected in an earlier session (Reload Window too) comes back with its forward set-ups
  // and resumes from its stored seq; only then a local relay on the port is looked for.
  context.subscriptions.push(
    relay.onRefused((label, status) => {
      void vscode.window
        .showWarningMessage(
          `${label} refused the relay token (HTTP ${status}): it was revoked, or its channel was deleted. Forwarding stopped.`,
          'Connect to Relay…',
        )
        .then((c) => (c ? vscode.commands.executeCommand(COMMANDS.connectRelay) : undefined));
    }),
  );
  // Restricted Mode: the relay (and its remembered connection) comes back only once trust is granted, without a reload.
  whenTrusted(context, () => void relay.restore());
  context.subscriptions.push(vscode.workspace.onDidGrantWorkspaceTrust(() => webhooks.refresh()));

  const activationTime = performance.now() - t0;
  recordActivationTime(activationTime);
  log().info(`activated in ${activationTime.toFixed(1)} ms`);
  return { activationMs: activationTime, relayDataDir, commandContext: ctx, diagnostics, takeLastError, agentTools };
}

export function deactivate(): void {}
