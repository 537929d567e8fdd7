// `service-hooks replay <seq>`: asks a running relay to send a journaled delivery again.
import { defineCommand } from '../cli/args';
import { RELAY_TARGET_HELP, RELAY_TARGET_OPTIONS, callRelay, relayApi } from '../cli/relayTarget';
import { EXIT, UsageError } from '../cli/io';

const help = `Usage: service-hooks replay <seq> [--to URL] [--resign-secret S]

Sends delivery <seq> from the relay's journal again: to its channel's targets, or to URL.
The original bytes and headers go as they were received, unless --resign-secret is given:
then X-Service-Signature is computed afresh over the same bytes with S.
Exit 0 when every attempt got a 2xx answer, 1 otherwise.

Options:
  --to URL            send to URL instead of the channel's targets
  --resign-secret S   re-sign with S (e.g. your app's local secret)
${RELAY_TARGET_HELP}
`;

export default defineCommand({
  help,
  options: { ...RELAY_TARGET_OPTIONS, to: { type: 'string' }, 'resign-secret': { type: 'string' } },
  positionals: true,
  async run({ values, positionals }, io) {
    if (positionals.length !== 1 || !/^\d+$/.test(positionals[0]!)) throw new UsageError('give exactly one delivery sequence number, e.g. `service-hooks replay 42`');
    if (values.to !== undefined && !/^https?:\/\/\S+$/.test(values.to)) throw new UsageError(`--to must be an http(s) URL, got '${values.to}'`);
    if (values['resign-secret'] === '') throw new UsageError('--resign-secret must not be empty: a signature keyed with the empty key proves nothing');
    const api = relayApi(values, io);
    const { attempts } = await callRelay(values.relay, () => api.replay(Number(positionals[0]), {
      ...(values.to ? { to: values.to } : {}),
      ...(values['resign-secret'] !== undefined ? { resignSecret: values['resign-secret'] } : {}),
    }));
    if (attempts.length === 0) {
      io.stderr.write(
        'replay: the relay forwards this delivery nowhere itself (a forward subscriber, such as the editor or `service-hooks forward`, may have taken it).\n' +
          '  Replay it to your app from the editor (Replay Delivery), with `service-hooks forward --since <seq - 1>`, or, with the admin token, pass --to URL.\n',
      );
    }
    for (const a of attempts) {
      const outcome = a.status !== undefined ? `HTTP ${a.status}` : `no answer (${a.error ?? 'error'})`;
      io.stdout.write(`${a.ok ? 'ok' : 'failed'}  ${a.target}  ${outcome}  ${a.durationMs} ms\n`);
    }
    return attempts.length > 0 && attempts.every((a) => a.ok) ? EXIT.ok : EXIT.failure;
  },
});
