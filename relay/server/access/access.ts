// Who may talk to the relay: the source allow-list for ingress (opt-in; presets), the Host and
// Origin checks that stop DNS rebinding on the API and WebSocket, and the bearer token.
import { BlockList, isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { RelayConfigError } from '../base/errors';

/** Named allow-list entries. `service`: the networks deliveries come from (spec §5). */
export const CIDR_PRESETS: Record<string, string[]> = {
  service: ['203.0.113.0/24', '198.51.100.0/24'],
  loopback: ['127.0.0.0/8', '::1/128'],
};

export class SourceAllowList {
  private readonly list = new BlockList();
  readonly entries: string[] = [];

  constructor(specs: readonly string[]) {
    for (const spec of specs) {
      const expanded = CIDR_PRESETS[spec] ?? [spec];
      for (const cidr of expanded) {
        const [addr, bits] = cidr.split('/');
        const family = isIP(addr ?? '');
        const prefix = bits === undefined ? (family === 6 ? 128 : 32) : Number(bits);
        if (!family || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 6 ? 128 : 32)) {
          throw new RelayConfigError(`not a CIDR or preset (${Object.keys(CIDR_PRESETS).join(', ')}): '${spec}'`);
        }
        this.list.addSubnet(addr!, prefix, family === 6 ? 'ipv6' : 'ipv4');
        this.entries.push(cidr);
      }
    }
  }

  get enabled(): boolean {
    return this.entries.length > 0;
  }

  allows(address: string | undefined): boolean {
    if (!this.enabled) return true;
    if (!address) return false;
    const a = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
    const family = isIP(a);
    if (!family) return false;
    return this.list.check(a, family === 6 ? 'ipv6' : 'ipv4');
  }
}

/**
 * The client address. X-Forwarded-For counts only on a connection from a trusted proxy
 * (`--trust-proxy` addresses or CIDRs): then the address is the entry its proxy chain appended
 * last that is not itself a trusted proxy. From any other peer the header is ignored, so a client
 * that reaches the port directly cannot pose as an allowed network.
 */
export function clientAddress(req: IncomingMessage, trusted: SourceAllowList | undefined): string | undefined {
  const peer = req.socket.remoteAddress;
  if (!trusted?.enabled || !trusted.allows(peer)) return peer;
  const xff = req.headers['x-forwarded-for'];
  const value = Array.isArray(xff) ? xff.join(',') : xff;
  const hops = (value ?? '')
    .split(',')
    .map((s) => s.trim().replace(/^\[|\]$/g, ''))
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) if (!trusted.allows(hops[i]) || i === 0) return hops[i];
  return peer;
}

/** Host must name this machine's loopback, the bound host, or an allowed host (port ignored). */
export function hostAllowed(hostHeader: string | undefined, boundHost: string, extra: readonly string[]): boolean {
  if (!hostHeader) return false;
  const m = /^(\[[^\]]+\]|[^:]+)(?::\d+)?$/.exec(hostHeader.trim().toLowerCase());
  if (!m) return false;
  const host = m[1]!;
  const ok = new Set(['localhost', '127.0.0.1', '[::1]', boundHost.toLowerCase(), `[${boundHost.toLowerCase()}]`, ...extra.map((h) => h.toLowerCase())]);
  return ok.has(host);
}

/** Origin: none (non-browser clients), a VS Code webview, or one configured explicitly. */
export function originAllowed(origin: string | undefined, extra: readonly string[]): boolean {
  if (origin === undefined || origin === '') return true;
  if (/^vscode-webview:\/\//i.test(origin) || /^vscode-file:\/\//i.test(origin)) return true;
  return extra.includes(origin);
}

// The bearer check is the one the emulator uses too.
export { bearer, tokenMatches } from '../../shared/http';
