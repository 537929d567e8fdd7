// The agent tools' tests' client: `service-hooks mcp` (the bundled CLI) over real stdio through the
// SDK's Client, and a tool call whose text may carry none of the given secrets.
import { strict as assert } from 'node:assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cli } from '../relay/support/helpers';

export interface Called {
  text: string;
  isError: boolean;
}

/** Starts `service-hooks mcp <args>` with only PATH and `env` in its environment, and connects to it. */
export async function mcpClient(args: string[], env: Record<string, string>, o: { name: string; cwd?: string }): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [await cli(), 'mcp', ...args],
    env: { PATH: process.env.PATH ?? '', ...env },
    ...(o.cwd ? { cwd: o.cwd } : {}),
    stderr: 'pipe',
  });
  const client = new Client({ name: o.name, version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** Calls tool `name`; fails the test when its text holds any of `secrets`. */
export async function callTool(client: Client, name: string, args: Record<string, unknown>, secrets: readonly string[]): Promise<Called> {
  const r = (await client.callTool({ name, arguments: args })) as { content: { type: string; text: string }[]; isError?: boolean };
  const text = r.content.map((c) => c.text).join('\n');
  for (const secret of secrets) assert.ok(!text.includes(secret), `${name} returned a secret: ${text}`);
  return { text, isError: r.isError === true };
}
