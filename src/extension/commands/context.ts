// What every command handler receives.
import type * as vscode from 'vscode';
import type { DeliveryDocuments } from '../deliveryDocument';
import type { RelayTree } from '../relayTree';
import type { Services } from '../services';
import type { WebhooksTree } from '../webhooksTree';

export interface CommandContext {
  services: Services;
  webhooks: WebhooksTree;
  relayTree: RelayTree;
  documents: DeliveryDocuments;
  extension: vscode.ExtensionContext;
}

export interface CommandModule {
  id: string;
  run(ctx: CommandContext, ...args: unknown[]): Promise<unknown> | unknown;
}
