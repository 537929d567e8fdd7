// The live list: newest first, paged back with before=, kept current by the relay's Server-Sent
// Events (/page/events read by ./feed.ts, resumed from the last seq after a disconnect). Filters
// go to the relay, which applies them over the whole channel; the live feed's deliveries are matched here
// with the same rules (src/core/relay/deliveryFilter.ts).
import { filtering, forwardOutcome, matchesFilter, type DeliveryFilter, type ForwardOutcome } from '../../src/core/relay/deliveryFilter';
import type { RelayDeliverySummary, Verification } from '../../src/core/relay/protocol';
import { SUBSCRIBER_TARGET } from '../../src/core/relay/protocol';
import { api, type Who } from './api';
import { openFeed, type Feed } from './feed';
import { clear, h, sizeOf, timeOf } from './dom';

const PAGE = 50;

export function forwardText(s: RelayDeliverySummary): string {
  if (s.forward.length === 0) return 'no target';
  return s.forward
    .map(
      (f) =>
        `${f.target === SUBSCRIBER_TARGET ? 'subscriber' : hostOf(f.target)}: ${f.status}${f.lastStatus ? ` ${f.lastStatus}` : ''}${f.attempts > 1 ? ` ×${f.attempts}` : ''}`,
    )
    .join(' · ');
}

function hostOf(target: string): string {
  try {
    const u = new URL(target);
    return u.host + u.pathname;
  } catch {
    return target;
  }
}

export class DeliveryList {
  readonly el = h('section', { class: 'list' });
  private readonly rows = h('ol', { class: 'rows', id: 'rows', 'aria-live': 'polite' });
  private readonly more = h('button', { type: 'button', class: 'secondary', id: 'older' }, 'Older deliveries');
  private readonly state = h('p', { class: 'muted', id: 'live-state' }, 'connecting…');
  private readonly items = new Map<number, RelayDeliverySummary>();
  private readonly filters = {
    channel: h('select', { id: 'f-channel', 'aria-label': 'Channel' }, h('option', { value: '' }, 'all channels')),
    event: h('input', { id: 'f-event', type: 'search', placeholder: 'event', 'aria-label': 'Event', list: 'events' }),
    verification: select('f-verification', 'Verification', ['', 'verified', 'unverified', 'rejected'], 'any verification'),
    outcome: select('f-outcome', 'Forward outcome', ['', 'ok', 'pending', 'failed', 'none'], 'any forward'),
    id: h('input', { id: 'f-id', type: 'search', placeholder: 'delivery id', 'aria-label': 'Delivery id' }),
  };
  private readonly events = h('datalist', { id: 'events' });
  private source: Feed | undefined;
  /** Counts reloads: the answer of one that a newer one overtook is dropped. */
  private generation = 0;
  private lastSeq = 0;
  private oldest = Infinity;

  constructor(
    private readonly who: Who,
    private readonly open: (seq: number) => void,
    /** Told each delivery and forward update of the live feed (the open delivery follows them). */
    private readonly changed: (s: RelayDeliverySummary) => void = () => undefined,
  ) {
    const f = this.filters;
    const bar = h('div', { class: 'filters' }, who.kind === 'admin' ? f.channel : null, f.event, f.verification, f.outcome, f.id, this.events);
    for (const el of [f.event, f.verification, f.outcome, f.id]) el.addEventListener('input', () => void this.reload());
    f.channel.addEventListener('change', () => void this.reload());
    this.more.addEventListener('click', () => void this.page());
    this.el.append(bar, this.state, this.rows, this.more);
  }

  async start(): Promise<void> {
    if (this.who.kind === 'admin') {
      const status = await api.status();
      for (const c of status.channels) this.filters.channel.append(h('option', { value: c.name }, c.name));
    }
    await this.reload();
  }

  stop(): void {
    this.source?.close();
    this.source = undefined;
  }

  /** What the filters ask for. */
  private filter(): DeliveryFilter {
    const f = this.filters;
    return {
      event: f.event.value.trim() || undefined,
      verification: (f.verification.value || undefined) as Verification | undefined,
      forward: (f.outcome.value || undefined) as ForwardOutcome | undefined,
      deliveryId: f.id.value.trim() || undefined,
    };
  }

  private async reload(): Promise<void> {
    this.stop();
    const generation = ++this.generation;
    const list = await api.list({ channel: this.filters.channel.value || undefined, limit: PAGE, filter: this.filter() });
    if (generation !== this.generation) return;
    this.items.clear();
    this.oldest = Infinity;
    this.lastSeq = list.lastSeq;
    this.add(list.deliveries);
    this.more.hidden = list.deliveries.length < PAGE;
    this.listen();
  }

  private async page(): Promise<void> {
    const generation = this.generation;
    const list = await api.list({ channel: this.filters.channel.value || undefined, before: this.oldest, limit: PAGE, filter: this.filter() });
    if (generation !== this.generation) return;
    this.add(list.deliveries);
    this.more.hidden = list.deliveries.length < PAGE;
  }

  /** Live: every new delivery and forward update of what this session sees; resumed after the last seq (./feed.ts). */
  private listen(): void {
    this.source = openFeed(this.lastSeq, {
      event: (type, data) => {
        if (type !== 'delivery' && type !== 'update') return;
        const s = JSON.parse(data) as RelayDeliverySummary;
        this.changed(s);
        const channel = this.filters.channel.value;
        if (channel && s.channel !== channel) return;
        if (type === 'update' ? !this.items.has(s.seq) : !matchesFilter(s, this.filter())) return;
        this.add([s]);
      },
      state: (s) => {
        // A session that ended (signed out elsewhere, channel deleted): the sign-in form.
        if (s.state === 'signed-out') return location.reload();
        this.state.textContent = s.state === 'refused' ? `not live: ${s.reason}` : s.state === 'live' ? 'live' : 'reconnecting…';
      },
    });
  }

  private add(list: RelayDeliverySummary[]): void {
    for (const s of list) {
      this.items.set(s.seq, s);
      this.oldest = Math.min(this.oldest, s.seq);
      if (s.event && ![...this.events.options].some((o) => o.value === s.event)) this.events.append(h('option', { value: s.event }));
    }
    this.render();
  }

  private render(): void {
    // The relay filtered what it sent; a forward update may have moved a row out since.
    const filter = this.filter();
    const shown = [...this.items.values()].sort((a, b) => b.seq - a.seq).filter((s) => matchesFilter(s, filter));
    clear(this.rows, ...shown.map((s) => this.row(s)));
    if (shown.length === 0)
      this.rows.append(
        h(
          'li',
          { class: 'empty muted' },
          filtering(filter) ? 'No delivery of this channel matches the filters.' : 'No deliveries yet. New ones appear here as they arrive.',
        ),
      );
  }

  private row(s: RelayDeliverySummary): HTMLLIElement {
    const v = s.verification;
    const button = h(
      'button',
      { type: 'button', class: 'row', 'data-seq': String(s.seq) },
      h('span', { class: 'seq' }, `#${s.seq}`),
      h('time', { datetime: s.receivedAt }, timeOf(s.receivedAt)),
      h('span', { class: 'event' }, s.event ?? '(no event)'),
      this.who.kind === 'admin' ? h('span', { class: 'channel' }, s.channel) : null,
      h('span', { class: 'id' }, s.deliveryId ?? ''),
      h('span', { class: 'size' }, sizeOf(s.size)),
      h('span', { class: `badge ${v}` }, v),
      h('span', { class: `forward ${forwardOutcome(s)}` }, forwardText(s)),
      v === 'rejected' && s.reason ? h('span', { class: 'reason' }, s.reason) : null,
    );
    button.addEventListener('click', () => this.open(s.seq));
    return h('li', {}, button);
  }
}

function select(id: string, label: string, values: string[], any: string): HTMLSelectElement {
  return h('select', { id, 'aria-label': label }, ...values.map((v) => h('option', { value: v }, v || any)));
}
