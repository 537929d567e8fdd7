// The subcommand table: what `service-hooks --help` lists and what each name loads.
// `load` runs only when that command runs, and in dist/ each command is its own bundle
// (dist/commands/<name>.js, see scripts/cliBuild.mjs), so `--help` and one command load
// nothing of the others (no undici for `lint`).
// To add a command: write relay/commands/<name>.ts with `export default defineCommand({ help, options, run })`
// and add one line below; the build picks it up from the `import('../commands/<name>')`.
import type { Command } from './cli/io';

export interface CommandEntry {
  name: string;
  /** One line for the top-level help. */
  summary: string;
  load: () => Promise<{ default: Command }>;
}

export const COMMANDS: readonly CommandEntry[] = [
  { name: 'emulate', summary: 'Run the service emulator: the webhook API, deliveries with retries, demo data', load: () => import('./commands/emulate') },
  { name: 'send', summary: 'Send a signed sample delivery to any receiver (like `stripe trigger`)', load: () => import('./commands/send') },
  { name: 'verify', summary: 'Check a delivery signature against the raw body (exit 0 valid, 1 not)', load: () => import('./commands/verify') },
  { name: 'relay', summary: 'Run the local relay: verify, journal and forward deliveries byte-exact', load: () => import('./commands/relay') },
  { name: 'forward', summary: 'Forward deliveries from a relay to a local URL (byte-exact, acked, resumable)', load: () => import('./commands/forward') },
  { name: 'deliveries', summary: 'List the deliveries a running relay has journaled', load: () => import('./commands/deliveries') },
  { name: 'replay', summary: 'Replay a journaled delivery through a running relay (as-is or re-signed)', load: () => import('./commands/replay') },
  { name: 'channels', summary: "Create, list and delete a relay's channels (each with its own secret and token)", load: () => import('./commands/channels') },
  {
    name: 'retry-pending',
    summary: "Attempt a running relay's pending forwards now, not at their next scheduled time",
    load: () => import('./commands/retry-pending'),
  },
  { name: 'mcp', summary: 'Serve the webhook tools to agents over MCP on stdio (acting tools with --allow-actions)', load: () => import('./commands/mcp') },
  { name: 'lint', summary: 'Lint workflow files for external names and fix them (--fix, --report)', load: () => import('./commands/lint') },
];

export function findCommand(name: string): CommandEntry | undefined {
  return COMMANDS.find((c) => c.name === name);
}
