// Open Delivery: headers and body as a read-only JSON document (a TextDocumentContentProvider).
import * as vscode from 'vscode';
import { redactHeaders, utf8OrUndefined } from '../../core/curl';
import { settings } from '../config';
import { DELIVERY_SCHEME } from '../ids';
import type { RelayManager } from '../relay/relayManager';
import type { Services } from '../services';

export class DeliveryDocuments implements vscode.TextDocumentContentProvider {
  constructor(
    private readonly services: Services,
    private readonly relay: RelayManager,
  ) {}

  static serviceUri(webhookId: string, deliveryId: string): vscode.Uri {
    return vscode.Uri.from({ scheme: DELIVERY_SCHEME, path: `/service/${encodeURIComponent(webhookId)}/${encodeURIComponent(deliveryId)}.json` });
  }

  static relayUri(seq: number): vscode.Uri {
    return vscode.Uri.from({ scheme: DELIVERY_SCHEME, path: `/relay/${seq}.json` });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const parts = uri.path
      .replace(/\.json$/, '')
      .split('/')
      .filter(Boolean)
      .map(decodeURIComponent);
    if (parts[0] === 'service' && parts.length === 3) {
      const client = await this.services.client();
      const d = await client.getDelivery(parts[1]!, parts[2]!);
      if (!d) return JSON.stringify({ error: 'The service does not offer delivery details.' }, null, 2);
      const { request, ...record } = d;
      return render({ source: "service's deliveries endpoint", delivery: record, headers: request.headers, body: request.body });
    }
    if (parts[0] === 'relay' && parts.length === 2) {
      const d = await this.relay.getDelivery(Number(parts[1]));
      const { headers, bodyBase64, ...summary } = d;
      const text = utf8OrUndefined(Buffer.from(bodyBase64, 'base64'));
      // A body that is not valid UTF-8 would be changed by decoding it: show its bytes as base64 instead.
      if (text === undefined) return render({ source: 'relay journal', delivery: summary, headers, bodyBase64 });
      return render({ source: 'relay journal', delivery: summary, headers, body: text });
    }
    throw new Error(`Unknown delivery document ${uri.toString()}`);
  }
}

function render(doc: { source: string; delivery: unknown; headers: Record<string, string>; body?: string; bodyBase64?: string }): string {
  let body: unknown = doc.body ?? null;
  if (doc.body !== undefined) {
    try {
      body = JSON.parse(doc.body);
    } catch {
      // not JSON: shown as the raw string
    }
  }
  const raw = doc.bodyBase64 === undefined ? {} : { bodyBase64: doc.bodyBase64, bodyNote: 'The body is not valid UTF-8; its exact bytes are shown as base64.' };
  // The event and delivery id as the configured header names carry them (serviceHooks.eventHeader / deliveryHeader).
  const { eventHeader, deliveryHeader } = settings();
  const pick = (name: string) => Object.entries(doc.headers).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
  return (
    JSON.stringify(
      {
        source: doc.source,
        event: pick(eventHeader) ?? null,
        deliveryId: pick(deliveryHeader) ?? null,
        delivery: doc.delivery,
        headers: redactHeaders(doc.headers),
        body,
        ...raw,
      },
      null,
      2,
    ) + '\n'
  );
}
