// `service-hooks replay <seq>`: asks a running relay to send a journaled delivery again: to its
// channel's targets (the relay posts), to --to URL, or, for a delivery that only a forward
// subscriber took (the editor, `service-hooks forward`), to the subscribers connected to its
// channel (they post it to their app again; `--to subscribers` asks for that explicitly).
import { REPLAY_TO_SUBSCRIBERS, SUBSCRIBER_TARGET } from '../../src/core/relay/protocol';
import { defineCommand } from '../cli/args';
import { RELAY_TARGET_HELP, RELAY_TARGET_OPTIONS, callRelay, relayApi } from '../cli/relayTarget';
import { EXIT, UsageError, type CliIO } from '../cli/io';
import { RelayApiError, type RelayApi } from '../client/api';
import { escapeControls } from '../../src/core/text/controls';

const help = `Usage: service-hooks replay <seq> [--to URL|subscribers] [--resign-secret S]

Sends delivery <seq> from the relay's journal again: to its channel's targets, or to URL.
The original bytes and headers go as they were received, unless --resign-secret is given:
then X-Service-Signature is computed afresh over the same bytes with S.
Exit 0 when every attempt got a 2xx answer, 1 otherwise.

A delivery that only a forward subscriber took (\`service-hooks forward\`, the editor's Connect
to Relay) is sent again to the subscribers connected to its channel (on a JetStream relay, to
any of its instances), which post it to their app
once more (their resume point stays) and show the answer as \`#SEQ … → 200 (replay)\`; the relay
records it. Exit 0 once it went to at least one subscriber; 1 when none is connected. The
admin token, or the channel's own token for its own deliveries.

Options:
  --to URL            send to URL instead of the channel's targets (admin token)
  --to subscribers    send to the channel's connected subscribers (the default for a delivery
                      only a subscriber forwarded)
  --resign-secret S   re-sign with S (e.g. your app's local secret); not with subscribers
${RELAY_TARGET_HELP}
`;

/** Sends `seq` to its channel's subscribers; the exit code. */
async function toSubscribers(api: RelayApi, seq: number, relay: string | undefined, io: CliIO): Promise<number> {
  try {
    const { subscribers } = await callRelay(relay, () => api.replayToSubscribers(seq));
    io.stdout.write(
      `sent #${seq} again to ${subscribers} subscriber${subscribers === 1 ? '' : 's'}: each posts it to its app (\`service-hooks deliveries\` shows the answer)\n`,
    );
    return EXIT.ok;
  } catch (err) {
    if (!(err instanceof RelayApiError) || err.status !== 409) throw err;
    io.stderr.write(`replay: ${err.message.replace(/^relay POST \S+: 409 /, '')}\n`);
    return EXIT.failure;
  }
}

export default defineCommand({
  help,
  options: { ...RELAY_TARGET_OPTIONS, to: { type: 'string' }, 'resign-secret': { type: 'string' } },
  positionals: true,
  async run({ values, positionals }, io) {
    if (positionals.length !== 1 || !/^\d+$/.test(positionals[0]!))
      throw new UsageError('give exactly one delivery sequence number, e.g. `service-hooks replay 42`');
    const toSubs = values.to === REPLAY_TO_SUBSCRIBERS;
    if (values.to !== undefined && !toSubs && !/^https?:\/\/\S+$/.test(values.to))
      throw new UsageError(`--to must be an http(s) URL or 'subscribers', got '${values.to}'`);
    if (values['resign-secret'] === '') throw new UsageError('--resign-secret must not be empty: a signature keyed with the empty key proves nothing');
    if (toSubs && values['resign-secret'] !== undefined)
      throw new UsageError('--resign-secret cannot be used with --to subscribers: subscribers get the delivery as received');
    const seq = Number(positionals[0]);
    const api = relayApi(values, io);
    if (toSubs) return toSubscribers(api, seq, values.relay, io);
    if (values.to === undefined && values['resign-secret'] === undefined) {
      const { forward } = await callRelay(values.relay, () => api.getDelivery(seq));
      if (forward.length > 0 && forward.every((f) => f.target === SUBSCRIBER_TARGET)) return toSubscribers(api, seq, values.relay, io);
    }
    const { attempts } = await callRelay(values.relay, () =>
      api.replay(seq, {
        ...(values.to ? { to: values.to } : {}),
        ...(values['resign-secret'] !== undefined ? { resignSecret: values['resign-secret'] } : {}),
      }),
    );
    if (attempts.length === 0) {
      io.stderr.write(
        'replay: the relay forwards this delivery nowhere itself (a forward subscriber, such as the editor or `service-hooks forward`, may have taken it).\n' +
          '  Send it to the subscribers connected to its channel with --to subscribers, replay it from the editor (Replay Delivery), or, with the admin token, pass --to URL.\n',
      );
    }
    for (const a of attempts) {
      const outcome = a.status !== undefined ? `HTTP ${a.status}` : `no answer (${a.error ?? 'error'})`;
      io.stdout.write(escapeControls(`${a.ok ? 'ok' : 'failed'}  ${a.target}  ${outcome}  ${a.durationMs} ms`) + '\n');
    }
    return attempts.length > 0 && attempts.every((a) => a.ok) ? EXIT.ok : EXIT.failure;
  },
});
