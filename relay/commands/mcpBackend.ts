// The agent tools' backend for `service-hooks mcp`: the service client from --service and
// SERVICE_HOOKS_TOKEN (or --token-file), the relay API as `deliveries` and `replay` find it (--relay,
// SERVICE_HOOKS_RELAY_TOKEN or <data>/token), workflow files under the working folder only.
// No token is read from argv, and every one is scrubbed from the results (knownSecrets).
import { readFileSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { describeToolError, ToolSetupError, type RelaySide, type ServiceSide, type ToolBackend } from '../../src/core/agentTools';
import type { RepoRef } from '../../src/core/client/types';
import { DEFAULT_BASE_URL, DEFAULT_RELAY_URL } from '../../src/core/defaults';
import { writeFileAtomic } from '../../src/core/writeFileAtomic';
import { tokenFilePath } from '../../src/core/relay/ready';
import { ingressUrl } from '../../src/core/relay/ingressChannel';
import { loadConfig } from '../lint/config';
import { DEFAULT_DATA_DIR } from '../server/index';
import type { CliIO } from '../cli/io';
import { relayApi } from '../cli/relayTarget';

export interface McpOptions {
  service?: string;
  tokenFile?: string;
  repo: RepoRef[];
  relay?: string;
  data?: string;
}

const HINTS = {
  signIn: 'start `service-hooks mcp` with SERVICE_HOOKS_TOKEN set to a service token (or --token-file FILE)',
  relay: 'start a relay (`service-hooks relay`) and give `service-hooks mcp` its address (--relay URL) and token (SERVICE_HOOKS_RELAY_TOKEN or --data DIR)',
};

export function mcpBackend(o: McpOptions, io: CliIO): ToolBackend {
  const baseUrl = o.service ?? io.env.SERVICE_HOOKS_BASE_URL ?? DEFAULT_BASE_URL;
  const token = o.tokenFile ? readFileSync(resolve(io.cwd, o.tokenFile), 'utf8').trim() : io.env.SERVICE_HOOKS_TOKEN;
  const signingSecret = io.env.SERVICE_HOOKS_SECRET || undefined;
  // Only to scrub it from results (the relay API never echoes it); relayApi() reads it the same way.
  const relayToken = io.env.SERVICE_HOOKS_RELAY_TOKEN ?? readOr(tokenFilePath(resolve(io.cwd, o.data ?? DEFAULT_DATA_DIR)));
  let service: Promise<ServiceSide> | undefined;

  const inside = async (path: string): Promise<string> => {
    const root = await realpath(io.cwd);
    const full = resolve(root, path);
    const rel = relative(root, await realpath(full).catch(() => full));
    if (rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).includes('..'))
      throw new ToolSetupError(`${path} is outside the working folder of service-hooks mcp (${root}).`);
    return full;
  };

  return {
    service: () =>
      (service ??= (async () => {
        if (!token) throw new ToolSetupError(`No service token: ${HINTS.signIn}.`);
        const { ServiceClient } = await import('../../src/core/client/client');
        return new ServiceClient({ baseUrl, token });
      })()),
    async relay(): Promise<RelaySide> {
      let api;
      try {
        api = relayApi({ relay: o.relay, data: o.data }, io);
      } catch (err) {
        throw new ToolSetupError(`${(err as Error).message}; ${HINTS.relay}.`);
      }
      const base = o.relay ?? DEFAULT_RELAY_URL;
      return {
        label: `the relay at ${base}`,
        listDeliveries: (q) => api.listDeliveries(q),
        getDelivery: (seq) => api.getDelivery(seq),
        replay: async (seq) => api.replay(seq),
        ingressUrl: (channel) => ingressUrl(base, channel),
      };
    },
    repositories: async () => o.repo,
    secretFor: async () => signingSecret,
    async post(url, headers, body) {
      const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer();
      return res.status;
    },
    async readWorkflow(path) {
      return { name: path, text: await readFile(await inside(path), 'utf8') };
    },
    async writeWorkflow(path, text) {
      await writeFileAtomic(await inside(path), text);
    },
    lintRules: async () => (await loadConfig(io.cwd)).rules,
    knownSecrets: async () => [token, relayToken, signingSecret].filter((s): s is string => !!s),
    describeError: (err) => describeToolError(err, HINTS),
  };
}

function readOr(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}
