// The relay the seams test drives, started again on each restart with the --config channels of
// the moment, on one data folder:
//   - on the file journal, in this process (startRelay, with the `channels` option: what
//     `relay --config FILE` turns the file's "channels" into), so hundreds of sequences fit a minute;
//   - on JetStream, as a relay process (the bundled CLI) with a real --config file, on a
//     nats-server of the sequence's own (the process cannot be given a fresh stream prefix).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { startRelay, type RelayServer } from '../../../relay/server';
import { spawnRelay, tempDir, type RelayProcess } from '../relay/support/helpers';
import { childEnv } from '../relay/support/publicHelpers';
import { startNats, type NatsCluster } from '../nats/natsServers';
import { configSecret } from './model';
import { ALLOW_CIDR, PLAIN, testCerts, tlsMaterial, type Mode } from './modes';

export const ADMIN_TOKEN = 'seams-admin-token-0123456789abcdef';

/** A relay the driver can start, restart with other --config channels, and stop. */
export interface RelayUnderTest {
  readonly url: string;
  /** The newest seq the relay gave out (a rejected delivery's, which its 401 does not tell). */
  lastSeq(): Promise<number>;
  /** What the relay logged (its log lines and their fields, or a process's output): no token or secret may be in it. */
  logged(): string[];
  start(config: Iterable<string>): Promise<void>;
  restart(config: Iterable<string>): Promise<void>;
  close(): Promise<void>;
}

export interface StoreUnderTest {
  /** What the output calls it. */
  name: string;
  /** A relay for one sequence, on a fresh data folder (and store), listening as `mode` says (./modes.ts). */
  relay(mode?: Mode): RelayUnderTest;
}

const channelsOf = (config: Iterable<string>) => Object.fromEntries([...config].map((n) => [n, { secrets: [configSecret(n)] }]));

export const FILE_JOURNAL: StoreUnderTest = { name: 'file journal', relay: (mode = PLAIN) => new InProcessRelay(mode) };

export const JETSTREAM: StoreUnderTest = { name: 'JetStream', relay: (mode = PLAIN) => new JetStreamRelay(mode) };

class InProcessRelay implements RelayUnderTest {
  private relay!: RelayServer;
  private readonly dataDir = tempDir('sh-seams-');
  private readonly lines: string[] = [];

  constructor(private readonly mode: Mode) {}

  logged(): string[] {
    return this.lines;
  }

  get url(): string {
    return this.relay.url;
  }

  lastSeq(): Promise<number> {
    return Promise.resolve(this.relay.store.lastSeq);
  }

  async start(config: Iterable<string>): Promise<void> {
    this.relay = await startRelay({
      port: 0,
      dataDir: this.dataDir,
      token: ADMIN_TOKEN,
      // Small segments: a restart reads sealed segments through their index files too.
      segmentBytes: 2048,
      channels: channelsOf(config),
      // (what --public, --tls-cert/--tls-key and --allow-cidr turn into)
      ...(this.mode.public ? { requireVerified: true } : {}),
      ...(this.mode.tls ? { tls: tlsMaterial() } : {}),
      ...(this.mode.allowCidr ? { allowCidr: ALLOW_CIDR } : {}),
      log: (line, fields) => void this.lines.push(`${line} ${JSON.stringify(fields ?? {})}`),
      // The steps post many rejected deliveries from one address: no 429 in the way of the model.
      rejectLimits: { perSource: { burst: 10_000, perMinute: 10_000 }, total: { burst: 10_000, perMinute: 10_000 } },
    });
  }

  async restart(config: Iterable<string>): Promise<void> {
    await this.relay.close();
    await this.start(config);
  }

  async close(): Promise<void> {
    // (undefined when start failed: its error is the one told)
    await (this.relay as RelayServer | undefined)?.close();
  }
}

/** `relay --store nats://… --config FILE` as a process; a sequence's rejected deliveries stay under the default rate limit (20 a source). */
class JetStreamRelay implements RelayUnderTest {
  private nats?: NatsCluster;
  private relay?: RelayProcess;
  private readonly dir = tempDir('sh-seams-js-');
  private readonly output: string[] = [];

  constructor(private readonly mode: Mode) {}

  logged(): string[] {
    return this.relay ? [...this.output, this.relay.stdout(), this.relay.stderr()] : this.output;
  }

  get url(): string {
    return this.relay!.url;
  }

  async lastSeq(): Promise<number> {
    const res = await request(`${this.url}/api/status`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    return ((await res.body.json()) as { lastSeq: number }).lastSeq;
  }

  async start(config: Iterable<string>): Promise<void> {
    this.nats ??= await startNats(1);
    const file = join(this.dir, 'config.json');
    writeFileSync(file, JSON.stringify({ channels: channelsOf(config) }));
    const args = ['--data', join(this.dir, 'data'), '--config', file, '--store', this.nats.urls, ...modeArgs(this.mode)];
    this.relay = await spawnRelay(args, childEnv({ SERVICE_HOOKS_RELAY_TOKEN: ADMIN_TOKEN }));
  }

  async restart(config: Iterable<string>): Promise<void> {
    await this.stopRelay();
    await this.start(config);
  }

  private async stopRelay(): Promise<void> {
    await this.relay?.stop();
    if (this.relay) this.output.push(this.relay.stdout(), this.relay.stderr());
    this.relay = undefined;
  }

  async close(): Promise<void> {
    await this.stopRelay();
    await this.nats?.stop();
  }
}

/** The relay command's flags for `mode` (--public's own default allow-list, the service's networks, would refuse loopback: it always comes with one here). */
function modeArgs(mode: Mode): string[] {
  const tls = mode.tls ? ['--tls-cert', testCerts().serverCert, '--tls-key', testCerts().serverKey, '--host', '127.0.0.1'] : [];
  const cidr = mode.allowCidr || mode.public ? ALLOW_CIDR.flatMap((c) => ['--allow-cidr', c]) : [];
  return [...(mode.public ? ['--public'] : []), ...tls, ...cidr];
}
