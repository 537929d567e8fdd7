// `service-hooks mcp`: the editor's webhook tools for agents outside VS Code, over MCP on stdio with
// the official SDK. The tools are src/core/agentTools (the same schemas, checks and results as the
// editor's); the acting ones are listed and run only with --allow-actions. stdout carries the
// protocol alone; the one start-up line goes to stderr.
import type { Readable, Writable } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { runTool, toolDefinition, TOOLS } from '../../src/core/agentTools';
import type { RepoRef } from '../../src/core/client/types';
import { defineCommand } from '../cli/args';
import { EXIT, UsageError } from '../cli/io';
import { mcpBackend } from './mcpBackend';

const help = `Usage: service-hooks mcp [--allow-actions] [--repo OWNER/REPO]… [--service URL] [--token-file FILE] [--relay URL] [--data DIR]

Serves the webhook tools over the Model Context Protocol on stdio, for agents outside VS Code:
list webhooks and deliveries, get a delivery (secrets redacted), explain a signature failure,
lint a workflow for porting; with --allow-actions also ping, retry, replay, send a sample event
and apply a port's fixes. docs/agent-tools.md says what each does and what it never returns.

Options:
  --allow-actions     list and run the acting tools (off by default: reading only)
  --repo OWNER/REPO   the repository the tools default to (repeatable)
  --service URL       the service (default env SERVICE_HOOKS_BASE_URL, else http://127.0.0.1:8787)
  --token-file FILE   read the service token from FILE (default env SERVICE_HOOKS_TOKEN)
  --relay URL         the relay's address (default http://127.0.0.1:8788)
  --data DIR          read the relay token from DIR/token (default env SERVICE_HOOKS_RELAY_TOKEN,
                      else ~/.service-hooks/relay/token)

Env: SERVICE_HOOKS_TOKEN (service token), SERVICE_HOOKS_RELAY_TOKEN (relay token),
SERVICE_HOOKS_SECRET (the secret sample events are signed with; unsigned without it).
No token is ever taken from the command line or written to a result.

Example (an agent's MCP configuration):
  { "command": "service-hooks", "args": ["mcp", "--repo", "acme/widgets"],
    "env": { "SERVICE_HOOKS_TOKEN": "…", "SERVICE_HOOKS_RELAY_TOKEN": "…" } }
`;

function parseRepos(values: string[] | undefined): RepoRef[] {
  return (values ?? []).map((r) => {
    const m = /^([^/\s]+)\/([^/\s]+)$/.exec(r);
    if (!m) throw new UsageError(`--repo must be owner/repo, got '${r}'`);
    return { owner: m[1]!, repo: m[2]! };
  });
}

export default defineCommand({
  help,
  options: {
    'allow-actions': { type: 'boolean' },
    repo: { type: 'string', multiple: true },
    service: { type: 'string' },
    'token-file': { type: 'string' },
    relay: { type: 'string' },
    data: { type: 'string' },
  },
  async run({ values }, io) {
    const allow = values['allow-actions'] === true;
    const backend = mcpBackend(
      { service: values.service, tokenFile: values['token-file'], repo: parseRepos(values.repo), relay: values.relay, data: values.data },
      io,
    );
    const offered = TOOLS.filter((t) => allow || !t.acting);
    const server = new Server({ name: 'service-hooks', version: '0.1.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: offered.map((t) => ({
        name: t.name,
        title: t.title,
        description: t.description,
        inputSchema: t.inputSchema as { type: 'object' },
        annotations: { title: t.title, readOnlyHint: !t.acting, destructiveHint: false, openWorldHint: true },
      })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (req) => {
      const tool = toolDefinition(req.params.name);
      if (tool?.acting && !allow)
        return {
          content: [{ type: 'text', text: `${tool.name} changes things, and acting tools are off: start service-hooks mcp with --allow-actions to use it.` }],
          isError: true,
        };
      const outcome = await runTool(backend, req.params.name, req.params.arguments ?? {});
      return { content: [{ type: 'text', text: outcome.text }], isError: !outcome.ok };
    });
    const transport = new StdioServerTransport(io.stdin as Readable, io.stdout as Writable);
    const closed = new Promise<void>((done) => {
      transport.onclose = done;
      io.stdin.once('end', done);
      io.stopSignal.addEventListener('abort', () => done(), { once: true });
    });
    await server.connect(transport);
    io.stderr.write(
      `service-hooks mcp: ${offered.length} tools on stdio${allow ? ' (acting tools on)' : ' (reading only; --allow-actions turns the acting tools on)'}\n`,
    );
    await closed;
    await server.close();
    return EXIT.ok;
  },
});
