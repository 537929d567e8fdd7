// What the chaos test prints about a delivery missing at the subscriber (issue 21), so that one
// failing run says where it was lost: its seq in the stream (the leader's copy), whether relay A's
// index has that seq and with which delivery, whether `service-hooks forward` was sent it, and the
// relay's lines about passing over, diverged copies and restarted followers.
import type { JetStreamManager } from '@nats-io/jetstream';
import { request } from 'undici';

export interface MissingProbe {
  jsm: JetStreamManager;
  stream: string;
  /** Seqs of the scenario: (from, to]. */
  from: number;
  to: number;
  relayUrl: string;
  token: string;
  /** `service-hooks forward`'s output (a line "#<seq> …" per delivery). */
  forwardLog: string;
  relayLog: string;
}

/** The seq each of `ids` has in the stream's leader's copy (absent: not in the stream). */
export async function locate(p: Pick<MissingProbe, 'jsm' | 'stream' | 'from' | 'to'>, ids: string[]): Promise<Map<string, number>> {
  const wanted = new Set(ids);
  const seqOf = new Map<string, number>();
  for (let seq = p.from + 1; seq <= p.to && seqOf.size < wanted.size; seq++) {
    const id = await p.jsm.streams.getMessage(p.stream, { seq }).then(
      (m) => (m ? idOf(Buffer.from(m.data)) : undefined),
      () => undefined,
    );
    if (id && wanted.has(id)) seqOf.set(id, seq);
  }
  return seqOf;
}

/** For each of `ids` its 200 named a seq for: the id the stream's leader holds at that seq now (undefined: none, or no id). */
export async function heldAtAckedSeq(
  p: Pick<MissingProbe, 'jsm' | 'stream'>,
  ids: string[],
  ackedSeq: Map<string, number>,
): Promise<Map<string, string | undefined>> {
  const held = new Map<string, string | undefined>();
  for (const id of ids) {
    const seq = ackedSeq.get(id);
    if (seq === undefined) continue;
    held.set(
      id,
      await p.jsm.streams.getMessage(p.stream, { seq }).then(
        (m) => (m ? idOf(Buffer.from(m.data)) : undefined),
        () => undefined,
      ),
    );
  }
  return held;
}

/**
 * The missing ids that nats-server is to answer for, not the relay:
 * - gone from the stream (it lost a delivery it had acknowledged);
 * - at a seq where the relay logged that the copies of the stream disagreed (a replica, a
 *   consumer or the leader answered with another message);
 * - or whose acknowledged seq (the PubAck the relay's 200 passed on) the stream now gives to
 *   another delivery: the server lost it and reused its seq, with or without such a log line.
 */
export function serverDefects(seqOf: Map<string, number>, ids: string[], relayLogs: string, heldAtAcked = new Map<string, string | undefined>()): string[] {
  return ids.filter((id) => {
    const seq = seqOf.get(id);
    if (seq === undefined) return true;
    if (heldAtAcked.has(id) && heldAtAcked.get(id) !== id) return true;
    return relayLogs.split('\n').some((l) => /another message|disagree|differs/.test(l) && new RegExp(`\\bseq ${seq}\\b`).test(l));
  });
}

/** Lines that say, for each missing id, where it went; and the relay's lines that may say why. */
export async function explainMissing(p: MissingProbe, ids: string[], seqOf?: Map<string, number>): Promise<string[]> {
  seqOf ??= await locate(p, ids);
  const lines: string[] = [];
  for (const id of ids) {
    const seq = seqOf.get(id);
    if (seq === undefined) {
      lines.push(`missing ${id}: not found in ${p.stream} seqs ${p.from + 1}..${p.to} (the leader's copy)`);
      continue;
    }
    const res = await request(`${p.relayUrl}/api/deliveries/${seq}`, { headers: { authorization: `Bearer ${p.token}` } });
    const detail = res.statusCode === 200 ? ((await res.body.json()) as { bodyBase64?: string }) : (await res.body.dump(), undefined);
    const indexed = detail
      ? `relay A's index holds ${idOf(Buffer.from(detail.bodyBase64 ?? '', 'base64')) ?? 'a body without an id'}`
      : `relay A answers ${res.statusCode}`;
    const sent = p.forwardLog.split('\n').filter((l) => l.startsWith(`#${seq} `));
    lines.push(`missing ${id}: seq ${seq}; ${indexed}; forward's lines for it: ${sent.length ? sent.join(' | ') : 'none'}`);
  }
  lines.push(...p.relayLog.split('\n').filter((l) => /passed over|another message|following .* again|is gone|body/.test(l)));
  return lines;
}

function idOf(body: Buffer): string | undefined {
  try {
    return (JSON.parse(body.toString()) as { id?: string }).id;
  } catch {
    return undefined;
  }
}
