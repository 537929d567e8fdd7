// One delivery: headers redacted as in the editor, the body pretty and as raw bytes (hex when it
// is not UTF-8), the signature doctor's words for a rejected one, Replay (scoped by the API; a
// delivery only subscribers took goes to the subscribers, as `service-hooks replay` does) and
// Copy as cURL (redacted, src/core/curl). Its forward state and attempts follow the live feed.
import { buildCurl, redactHeaders, utf8OrUndefined } from '../../src/core/curl';
import { SUBSCRIBER_TARGET, type ForwardAttempt, type RelayDelivery } from '../../src/core/relay/protocol';
import { ingressUrl } from '../../src/core/relay/ingressChannel';
import { api, type Who } from './api';
import { clear, h, sizeOf, timeOf } from './dom';
import { forwardText } from './list';

export function bytesOf(base64: string): Uint8Array {
  const bin = atob(base64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** 16 bytes a line: offset, hex, printable ASCII. */
export function hexDump(bytes: Uint8Array): string {
  const lines: string[] = [];
  for (let i = 0; i < bytes.length; i += 16) {
    const chunk = [...bytes.subarray(i, i + 16)];
    const hex = chunk.map((b) => b.toString(16).padStart(2, '0')).join(' ');
    const ascii = chunk.map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${i.toString(16).padStart(8, '0')}  ${hex.padEnd(47)}  ${ascii}`);
  }
  return lines.join('\n');
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** The delivery shown: `refresh` reads its forward state and attempts again (the live feed said they changed). */
export interface OpenDelivery {
  seq: number;
  refresh(): Promise<void>;
}

export async function showDelivery(panel: HTMLElement, who: Who, seq: number, close: () => void): Promise<OpenDelivery | undefined> {
  panel.hidden = false;
  clear(panel, h('p', { class: 'muted' }, `Loading delivery #${seq}…`));
  let d: RelayDelivery;
  try {
    d = await api.detail(seq);
  } catch (err) {
    clear(panel, h('p', { class: 'error' }, (err as Error).message));
    return undefined;
  }
  const bytes = bytesOf(d.bodyBase64);
  const text = utf8OrUndefined(bytes);
  const headers = redactHeaders(d.headers);
  const back = h('button', { type: 'button', class: 'secondary', id: 'back' }, '← Deliveries');
  back.addEventListener('click', close);
  const forward = h('dd', { id: 'forward-state' }, forwardText(d));
  const attempts = h('div', { id: 'attempts-box' }, attemptsList(d.attempts));
  const body = h('pre', { class: 'body', id: 'body' });
  // A hex dump's lines are columns (offset, 16 bytes, ASCII): they scroll sideways, never wrap.
  const show = (content: string | undefined) => {
    body.textContent = content ?? hexDump(bytes);
    body.classList.toggle('hex', content === undefined);
  };
  show(text === undefined ? undefined : pretty(text));
  const views = h(
    'div',
    { class: 'tabs', role: 'group', 'aria-label': 'Body view' },
    tab('Pretty', () => show(text === undefined ? undefined : pretty(text))),
    tab('Raw', () => show(text)),
    tab('Hex', () => show(undefined)),
  );
  clear(
    panel,
    back,
    h('h2', {}, `#${d.seq} ${d.event ?? '(no event)'}`),
    h(
      'dl',
      { class: 'facts' },
      ...fact('Received', timeOf(d.receivedAt)),
      ...fact('Channel', d.channel),
      ...fact('Delivery id', d.deliveryId ?? '—'),
      ...fact('Size', `${sizeOf(d.size)}${d.truncated ? ` (only the first ${d.truncated.kept} bytes kept; sha256 ${d.truncated.sha256})` : ''}`),
      ...fact('Verification', d.verification),
      h('dt', {}, 'Forward'),
      forward,
    ),
    d.verification === 'rejected' ? doctor(d) : null,
    h('h3', {}, 'Headers'),
    h('dl', { class: 'headers', id: 'headers' }, ...Object.entries(headers).flatMap(([k, v]) => fact(k, v))),
    h('h3', {}, 'Body', text === undefined ? h('span', { class: 'muted' }, ' (not UTF-8: shown as hex)') : null),
    views,
    body,
    actions(d, who, bytes),
    attempts,
  );
  return {
    seq,
    refresh: async () => {
      const now = await api.detail(seq);
      forward.textContent = forwardText(now);
      clear(attempts, attemptsList(now.attempts));
    },
  };
}

/** The reason recorded at receipt, then the doctor's findings (run by the relay with the channel's secrets). */
function doctor(d: RelayDelivery): HTMLElement {
  const findings = h('ul', { id: 'doctor-findings' });
  api.explain(d.seq).then(
    (r) => findings.append(...r.findings.map((f) => h('li', {}, f))),
    (err: Error) => findings.append(h('li', { class: 'muted' }, `the doctor could not run: ${err.message}`)),
  );
  return h('div', { class: 'doctor', id: 'doctor' }, h('p', {}, h('strong', {}, 'Signature doctor: '), d.reason ?? 'the signature did not match'), findings);
}

function tab(label: string, show: () => void): HTMLButtonElement {
  const b = h('button', { type: 'button', class: 'secondary' }, label);
  b.addEventListener('click', show);
  return b;
}

function fact(k: string, v: string): HTMLElement[] {
  return [h('dt', {}, k), h('dd', {}, v)];
}

function actions(d: RelayDelivery, who: Who, bytes: Uint8Array): HTMLElement {
  const result = h('p', { class: 'result', id: 'action-result', role: 'status' });
  const to = who.kind === 'admin' ? h('input', { type: 'url', id: 'replay-to', placeholder: 'to another URL (optional)', 'aria-label': 'Replay to' }) : null;
  const replay = h('button', { type: 'button', id: 'replay' }, 'Replay');
  // Only subscribers (the editor, `service-hooks forward`) took it: the relay posts it nowhere
  // itself, so it goes to the subscribers connected to its channel, which post it to their app.
  const onlySubscribers = d.forward.length > 0 && d.forward.every((f) => f.target === SUBSCRIBER_TARGET);
  replay.addEventListener('click', () => {
    replay.disabled = true;
    const url = to?.value.trim() || undefined;
    const sent: Promise<string> =
      !url && onlySubscribers
        ? api
            .replayToSubscribers(d.seq)
            .then(
              (r) =>
                `Sent again to ${r.subscribers} subscriber${r.subscribers === 1 ? '' : 's'} of channel ${d.channel}: each posts it to its app; the answer appears under Attempts.`,
            )
        : api
            .replay(d.seq, url)
            .then((r) =>
              r.attempts.length
                ? r.attempts.map(attemptText).join(' · ')
                : 'Not sent: the relay forwards this delivery nowhere itself and no subscriber took it.',
            );
    sent
      .then(
        (text) => (result.textContent = text),
        (err: Error) => (result.textContent = `Replay refused: ${err.message}`),
      )
      .finally(() => (replay.disabled = false));
  });
  const curlText = h('pre', { class: 'curl', id: 'curl', hidden: true });
  const copy = h('button', { type: 'button', class: 'secondary', id: 'copy-curl' }, 'Copy as cURL');
  copy.addEventListener('click', () => {
    const target = d.forward.find((f) => /^https?:/.test(f.target))?.target ?? ingressUrl(location.origin, d.channel);
    const curl = buildCurl(target, d.headers, bytes);
    curlText.textContent = curl;
    curlText.hidden = false;
    navigator.clipboard?.writeText(curl).then(
      () => (result.textContent = 'cURL command copied (signature and secrets redacted).'),
      () => (result.textContent = 'Select the command below to copy it (signature and secrets redacted).'),
    );
  });
  return h('div', { class: 'actions' }, to, replay, copy, result, curlText);
}

function attemptText(a: ForwardAttempt): string {
  return `${a.replay ? 'replay ' : ''}${a.target}: ${a.status ?? a.error ?? 'no answer'}${a.ok ? ' ok' : ''} (${Math.round(a.durationMs)} ms)`;
}

function attemptsList(attempts: ForwardAttempt[]): HTMLElement | null {
  if (attempts.length === 0) return null;
  return h(
    'div',
    {},
    h('h3', {}, 'Attempts'),
    h('ol', { class: 'attempts', id: 'attempts' }, ...attempts.map((a) => h('li', {}, `${timeOf(a.at)} ${attemptText(a)}`))),
  );
}
