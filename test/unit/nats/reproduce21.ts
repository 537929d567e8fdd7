// Issue 21's reproduction, as a script (`npx tsx test/unit/nats/reproduce21.ts [runs]`): three
// nats-server, two relays A and B forwarding to one app, `service-hooks forward` on A to a second
// app, 16 senders alternating A and B without pause; kill -9 of the third server after 400 posts
// were answered 200, of relay B after 800. Prints what was answered, what reached each app within
// 60 s and what is missing. Exit status 1 when anything acknowledged is missing.
import { spawn, type ChildProcess } from 'node:child_process';
import { cli, spawnRelay, tempDir, type RelayProcess } from '../relay/support/helpers';
import { writeFileSync } from 'node:fs';
import { burst, countingApp, longestGap, tally } from './burst';
import { startNats } from './natsServers';

const SECRET = 'issue-21-secret-0123456789';
const TOKEN = 'issue-21-admin-token-0123456789';

async function forwardTo(relay: RelayProcess, to: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [await cli(), 'forward', '--relay', relay.url.replace('http', 'ws'), '--to', to, '--since', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, SERVICE_HOOKS_RELAY_TOKEN: TOKEN },
  });
  child.stderr!.resume();
  return child;
}

async function run(n: number): Promise<boolean> {
  const nats = await startNats(3);
  const app = await countingApp();
  const sub = await countingApp();
  const env = { ...process.env, SERVICE_HOOKS_RELAY_TOKEN: TOKEN };
  const args = ['--store', nats.urls, '--secret', SECRET, '--forward', app.url];
  const a = await spawnRelay([...args, '--data', tempDir()], env);
  const b = await spawnRelay([...args, '--data', tempDir()], env);
  const fwd = await forwardTo(a, sub.url);
  let bAlive = true;
  const load = burst({ secret: SECRET, senders: 16, limit: 1600, target: (i) => (i % 2 === 0 || !bAlive ? a.url : b.url) });
  try {
    await load.whenAcked(400);
    await nats.nodes[2]!.kill();
    const killedAt = Date.now();
    await load.whenAcked(800);
    await b.stop('SIGKILL');
    bAlive = false;
    // The runs posted 1,600 deliveries.
    await load.whenSent(1600);
    await load.stop();
    const stoppedAt = Date.now();
    const atApp = await app.until(() => tally(load.acked, app).missing.length === 0, 60_000);
    const atSub = await sub.until(() => tally(load.acked, sub).missing.length === 0, Math.max(0, 60_000 - (Date.now() - stoppedAt)));
    const ta = tally(load.acked, app);
    const ts = tally(load.acked, sub);
    console.log(
      `run ${n}: sent ${load.sent}, answered 200 ${load.acked.size}, failed ${JSON.stringify(Object.fromEntries(load.failed))}, slowest post ${load.slowest} ms; ` +
        `burst after the server's kill ${stoppedAt - killedAt} ms\n` +
        `  app: ${ta.arrived} arrived, ${ta.missing.length} missing, ${ta.twice} twice, longest 200→app ${ta.longestMs} ms\n` +
        `  subscriber: ${ts.arrived} arrived, ${ts.missing.length} missing, ${ts.twice} twice, longest 200→app ${ts.longestMs} ms`,
    );
    const gap = longestGap(load.log, killedAt, stoppedAt);
    console.log(
      `  longest time without a 200 after the server's kill: ${gap.ms} ms (from +${gap.at - killedAt} ms); messages ${JSON.stringify(Object.fromEntries(load.messages))}`,
    );
    writeFileSync(`/tmp/repro21-${n}-a.log`, a.stderr());
    writeFileSync(`/tmp/repro21-${n}-b.log`, b.stderr());
    if (!atApp || !atSub) {
      console.log(`  A's log (last lines):\n${a.stderr().split('\n').slice(-15).join('\n')}`);
    }
    return atApp && atSub;
  } finally {
    fwd.kill('SIGKILL');
    await a.stop('SIGKILL');
    await b.stop('SIGKILL');
    await app.close();
    await sub.close();
    await nats.stop();
  }
}

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 1);
  let passed = 0;
  for (let i = 1; i <= runs; i++) if (await run(i)) passed++;
  console.log(`${passed} of ${runs} runs passed`);
  process.exit(passed === runs ? 0 : 1);
}

void main();
