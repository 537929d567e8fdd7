// Open Delivery: headers and body in a read-only JSON document.
import * as vscode from 'vscode';
import { DeliveryDocuments } from '../webhooks/deliveryDocument';
import { COMMANDS } from '../ids';
import { isRelayTarget, pickDelivery, pickRelayDelivery } from './pickers';
import { withProgress } from '../ui/progress';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.openDelivery,
  async run(ctx, arg) {
    let uri: vscode.Uri;
    if (isRelayTarget(arg)) {
      uri = DeliveryDocuments.relayUri((await pickRelayDelivery(ctx, arg, 'Open Delivery')).seq);
    } else {
      const { webhook, deliveryId, journaled } = await pickDelivery(ctx, arg, { title: 'Open Delivery' });
      uri = journaled?.seq !== undefined ? DeliveryDocuments.relayUri(journaled.seq) : DeliveryDocuments.serviceUri(webhook.id, deliveryId);
    }
    const doc = await withProgress('Opening the delivery…', () => Promise.resolve(vscode.workspace.openTextDocument(uri)), { location: 'window' });
    await vscode.languages.setTextDocumentLanguage(doc, 'json');
    await vscode.window.showTextDocument(doc, { preview: true });
    return { uri: uri.toString(), text: doc.getText() };
  },
};
export default command;
