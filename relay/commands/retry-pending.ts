// `service-hooks retry-pending`: "retry pending now" on a running relay: forwards waiting for their
// next scheduled attempt are queued at once, in seq order.
import { defineCommand } from '../cli/args';
import { RELAY_TARGET_HELP, RELAY_TARGET_OPTIONS, callRelay, relayApi } from '../cli/relayTarget';
import { EXIT, UsageError } from '../cli/io';

const help = `Usage: service-hooks retry-pending [--channel C] [--target URL]

Asks a running relay to attempt its pending forwards now instead of at their next scheduled
attempt (1, 5 or 30 minutes after a failure): they are queued at once, in seq order, with the
relay's usual concurrency. Use it when your app is back up. (The relay also does this by itself
when a target answers 2xx again, and at start-up.) Forwards that already gave up ('failed') are
not retried: replay those with \`service-hooks replay <seq>\`.

Options:
  --channel C         only deliveries of channel C
  --target URL        only forwards to URL (as the relay's --forward or config names it)
${RELAY_TARGET_HELP}
`;

export default defineCommand({
  help,
  options: { ...RELAY_TARGET_OPTIONS, channel: { type: 'string' }, target: { type: 'string' } },
  async run({ values }, io) {
    if (values.channel === '') throw new UsageError('--channel must not be empty');
    if (values.target !== undefined && !/^https?:\/\/\S+$/.test(values.target)) throw new UsageError(`--target must be an http(s) URL, got '${values.target}'`);
    const api = relayApi(values, io);
    const { queued } = await callRelay(values.relay, () =>
      api.retryPending({ ...(values.channel ? { channel: values.channel } : {}), ...(values.target ? { target: values.target } : {}) }),
    );
    io.stdout.write(`queued ${queued} pending forward${queued === 1 ? '' : 's'} for an attempt now\n`);
    return EXIT.ok;
  },
});
