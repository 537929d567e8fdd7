// The local relay as a process on a port: Start Relay runs the bundled CLI with the editor's data
// folder (or, when another relay holds that folder, one of its own for the port), and a relay of
// this editor's found on the port is used with the token in one of those folders.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tokenFilePath } from '../../core/relay/ready';
import { loadRelayClient } from '../deps';
import { log } from '../log';
import { localBase } from './inUse';
import { RelayStartError, type RelayProcess } from './process';

export interface LocalRelayOptions {
  extensionPath: string;
  dataDir: string;
  /** The secret the local relay verifies with (RelayManager.localSecret). */
  localSecret: () => Promise<string>;
}

export class LocalRelay {
  constructor(
    private readonly process: RelayProcess,
    private readonly o: LocalRelayOptions,
  ) {}

  /** The token of the relay of this editor's on `port`: its own data folder's, or the one it started there for that port. */
  async readToken(port: number): Promise<string> {
    const relayClient = await loadRelayClient();
    let last: unknown;
    for (const dir of [this.o.dataDir, this.portDataDir(port)]) {
      try {
        const token = (await readFile(tokenFilePath(dir), 'utf8')).trim();
        await new relayClient.RelayApi({ baseUrl: localBase(port), token, timeoutMs: 2000 }).status();
        return token;
      } catch (err) {
        last = err;
      }
    }
    throw last;
  }

  /**
   * Runs the relay on `port` with the editor's data folder; when another relay holds that folder
   * (exit 3: one started elsewhere on another port), with a folder of its own for this port.
   */
  async spawn(port: number, forwardUrl: string): Promise<{ port: number; token: string }> {
    const options = {
      cliPath: join(this.o.extensionPath, 'dist', 'cli.js'),
      port,
      secrets: [await this.o.localSecret()],
      forward: forwardUrl ? [forwardUrl] : [],
      log: (line: string) => log().info(line),
    };
    try {
      return await this.process.start({ ...options, dataDir: this.o.dataDir });
    } catch (err) {
      if (!(err instanceof RelayStartError) || err.exitCode !== 3 || port === 0) throw err;
      log().info(`the data folder ${this.o.dataDir} is in use by another relay: using ${this.portDataDir(port)} for port ${port}`);
      return await this.process.start({ ...options, dataDir: this.portDataDir(port) });
    }
  }

  /** The data folder of a relay started here on `port` while another relay holds the editor's own. */
  portDataDir(port: number): string {
    return `${this.o.dataDir}-${port}`;
  }
}
