// GET /page/explain/<seq>: the signature doctor (src/core/doctor.ts) on a rejected delivery, run
// here with the channel's secrets so the browser never sees them: only the doctor's findings (in
// words, never a secret or a digest of one) go back.
import type { ServerResponse } from 'node:http';
import { explainSignature } from '../../../src/core/doctor';
import { SIGNATURE_HEADER } from '../../../src/core/signing';
import { sendError, sendJson } from '../../shared/http';
import { sees, type Scope } from '../access/scope';
import type { RelayStore } from '../store/storeTypes';

export async function explainDelivery(
  res: ServerResponse,
  store: RelayStore,
  scope: Scope,
  seq: number,
  secretsOf: (channel: string) => string[],
): Promise<void> {
  const found = store.get(seq);
  if (!found || !sees(scope, found.channelKey)) return sendError(res, 404, `no delivery ${seq}`);
  const r = await store.read(seq);
  if (!r) return sendError(res, 404, `no delivery ${seq}`);
  if (r.meta.verification !== 'rejected') return sendJson(res, 200, { ok: r.meta.verification === 'verified', findings: [] });
  if (r.meta.received) {
    return sendJson(res, 200, {
      ok: false,
      findings: [`only the first ${r.body.length} of ${r.meta.received.size} bytes were kept (a rejected delivery), so the doctor cannot try the whole body`],
    });
  }
  const name = SIGNATURE_HEADER.toLowerCase();
  const header =
    r.meta.headers
      .filter(([k]) => k.toLowerCase() === name)
      .map(([, v]) => v)
      .join(', ') || undefined;
  const { ok, findings } = explainSignature({ body: r.body, header, secrets: secretsOf(r.meta.channel) });
  sendJson(res, 200, { ok, findings }, { 'cache-control': 'no-store' });
}
