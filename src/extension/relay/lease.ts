// Which extension host forwards: one at a time per machine and user. After Reload Window the old
// extension host can live on for a while (code-server keeps it for a reconnection), and two
// windows restore the same connection; both would post each delivery to the app. The host that
// connected last holds the lease (a small file beside the relay data folder); a forwarder checks it
// before each delivery and stops when another host took it over. No 'vscode' here.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export class ForwardLease {
  private readonly id = `${process.pid}-${randomBytes(6).toString('hex')}`;

  constructor(private readonly file: string) {}

  /** This host forwards from now on (another host's forwarder stops at its next delivery). */
  take(): void {
    mkdirSync(dirname(this.file), { recursive: true });
    writeFileSync(this.file, JSON.stringify({ id: this.id, pid: process.pid, at: new Date().toISOString() }) + '\n', { mode: 0o600 });
  }

  /** Whether this host still holds the lease (a missing or unreadable file: yes, nobody took it). */
  held(): boolean {
    try {
      return (JSON.parse(readFileSync(this.file, 'utf8')) as { id?: string }).id === this.id;
    } catch {
      return true;
    }
  }
}
