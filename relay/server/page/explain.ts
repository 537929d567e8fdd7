// GET /page/explain/<seq>: the signature doctor (src/core/doctor.ts) on a rejected delivery, run
// here with the channel's secrets so the browser never sees them: only the doctor's findings (in
// words, never a secret or a digest of one) go back. The secrets are those of the channel identity
// the delivery came to (name@generation), never those of a later channel that took its name.
import type { ServerResponse } from 'node:http';
import { channelGone, explainSignature } from '../../../src/core/doctor';
import { SIGNATURE_HEADER } from '../../../src/core/signing';
import { sendError, sendJson } from '../../shared/http';
import { sees, type Scope } from '../access/scope';
import type { RelayStore } from '../base/storeTypes';

export async function explainDelivery(
  res: ServerResponse,
  store: RelayStore,
  scope: Scope,
  seq: number,
  secretsOf: (key: string) => string[] | undefined,
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
  const secrets = secretsOf(found.channelKey);
  if (secrets === undefined) return sendJson(res, 200, { ok: false, findings: [channelGone(r.meta.channel)] }, { 'cache-control': 'no-store' });
  const { ok, findings } = explainSignature({ body: r.body, header, secrets });
  sendJson(res, 200, { ok, findings }, { 'cache-control': 'no-store' });
}
