// The relay CLI's output as a protocol: where the token file lives, the machine-readable ready line
// (`service-hooks relay --ready json`) and the exit code of a port in use. Whoever starts a relay
// and waits for it (the editor, scripts/start.mjs, tests, benches) reads these, not the human text.
import { join } from 'node:path';

/** The relay's admin token file inside its data folder (mode 0600; written once by the relay). */
export function tokenFilePath(dataDir: string): string {
  return join(dataDir, 'token');
}

/** `service-hooks relay` exits with this when its port is taken (EADDRINUSE). */
export const EXIT_PORT_IN_USE = 4;

/** One line of JSON on stdout, printed once the relay serves (after the human `relay listening on` line). */
export interface RelayReady {
  ready: 'relay';
  /** Base URL, e.g. http://127.0.0.1:8788 (https:// with TLS). */
  url: string;
  /** The data folder (absolute). */
  dataDir: string;
  /** The admin token file; null when the token came from SERVICE_HOOKS_RELAY_TOKEN instead. */
  tokenFile: string | null;
  pid: number;
}

export function formatRelayReady(r: Omit<RelayReady, 'ready'>): string {
  const line: RelayReady = { ready: 'relay', url: r.url, dataDir: r.dataDir, tokenFile: r.tokenFile, pid: r.pid };
  return JSON.stringify(line);
}

/** The ready line among complete lines of a relay's stdout so far, or undefined (not printed yet). */
export function parseRelayReady(output: string): RelayReady | undefined {
  for (const line of output.split('\n').slice(0, -1)) {
    if (!line.startsWith('{')) continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      continue;
    }
    const r = v as Partial<RelayReady>;
    if (
      r.ready === 'relay' &&
      typeof r.url === 'string' &&
      typeof r.dataDir === 'string' &&
      (typeof r.tokenFile === 'string' || r.tokenFile === null) &&
      typeof r.pid === 'number'
    ) {
      return { ready: 'relay', url: r.url, dataDir: r.dataDir, tokenFile: r.tokenFile, pid: r.pid };
    }
  }
  return undefined;
}
