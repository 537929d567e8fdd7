// What every command handler receives.
import type * as vscode from 'vscode';
import type { WebhookTreeNode } from '../../core/tree';
import type { DeliveryDocuments } from '../webhooks/deliveryDocument';
import type { RelayTree } from '../relay/relayTree';
import type { SerialState } from '../storage/serialState';
import type { Services } from '../services';
import type { WebhooksTree } from '../webhooks/webhooksTree';

export interface CommandContext {
  services: Services;
  webhooks: WebhooksTree;
  /** the Webhooks tree view (reveal, selection) */
  webhooksView?: vscode.TreeView<WebhookTreeNode>;
  relayTree: RelayTree;
  documents: DeliveryDocuments;
  extension: vscode.ExtensionContext;
  /** The extension's globalState, one write at a time (serialState.ts): write through this, never extension.globalState. */
  globalState: SerialState;
}

export interface CommandModule {
  id: string;
  run(ctx: CommandContext, ...args: unknown[]): Promise<unknown> | unknown;
}
