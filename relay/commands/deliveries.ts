// `service-hooks deliveries`: lists what a running relay has journaled, newest last.
import { defineCommand } from '../cli/args';
import { RELAY_TARGET_HELP, RELAY_TARGET_OPTIONS, callRelay, relayApi } from '../cli/relayTarget';
import { EXIT, UsageError } from '../cli/io';
import { SUBSCRIBER_TARGET, type ForwardState, type RelayDeliverySummary } from '../../src/core/relay/protocol';
import { escapeControls } from '../../src/core/text/controls';

const help = `Usage: service-hooks deliveries [--channel C] [--status S] [--since SEQ] [--before SEQ] [--limit N] [--json]

Lists the deliveries a running relay holds in its journal: seq, time, channel, event,
verification and forward status. Replay one with \`service-hooks replay <seq>\`.

Options:
  --channel C         only this channel
  --status S          verified | unverified | rejected | pending | ok | failed
  --since SEQ         only deliveries after SEQ
  --before SEQ        only deliveries before SEQ (the next page: the smallest seq listed)
  --limit N           at most N (default 50)
  --json              print the relay's JSON answer
${RELAY_TARGET_HELP}
`;

const STATUSES = ['verified', 'unverified', 'rejected', 'pending', 'ok', 'failed'];

function forwardText(f: ForwardState): string {
  const state = `${f.status}${f.lastStatus ? ` ${f.lastStatus}` : ''}`;
  return f.target === SUBSCRIBER_TARGET ? `${state} (by a forward subscriber)` : state;
}

function line(d: RelayDeliverySummary): string {
  const fwd = d.forward.map(forwardText).join(', ') || (d.verification === 'rejected' ? 'none (rejected)' : 'no target');
  const why = d.reason ? ` (${d.reason})` : '';
  // The event name and reason are the sender's text: no terminal escape sequence of theirs is printed raw.
  return escapeControls(`#${d.seq}  ${d.receivedAt}  ${d.channel}  ${d.event ?? '-'}  ${d.verification}${why}  ${d.size} B  forward: ${fwd}`);
}

export default defineCommand({
  help,
  options: {
    ...RELAY_TARGET_OPTIONS,
    channel: { type: 'string' },
    status: { type: 'string' },
    since: { type: 'string' },
    before: { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run({ values }, io) {
    if (values.status !== undefined && !STATUSES.includes(values.status)) {
      throw new UsageError(`--status must be one of ${STATUSES.join(', ')}, got '${values.status}'`);
    }
    for (const k of ['since', 'before', 'limit'] as const) {
      const v = values[k];
      if (v !== undefined && !/^\d+$/.test(v)) throw new UsageError(`--${k} must be a non-negative integer, got '${v}'`);
    }
    const api = relayApi(values, io);
    const list = await callRelay(values.relay, () =>
      api.listDeliveries({
        channel: values.channel,
        status: values.status as never,
        since: values.since === undefined ? undefined : Number(values.since),
        before: values.before === undefined ? undefined : Number(values.before),
        limit: values.limit === undefined ? 50 : Number(values.limit),
      }),
    );
    if (values.json) io.stdout.write(JSON.stringify(list, null, 2) + '\n');
    else {
      for (const d of list.deliveries) io.stdout.write(line(d) + '\n');
      io.stderr.write(`${list.deliveries.length} ${list.deliveries.length === 1 ? 'delivery' : 'deliveries'} (relay at seq ${list.lastSeq})\n`);
    }
    return EXIT.ok;
  },
});
