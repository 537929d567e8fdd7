// The subcommand table. Each module is loaded only when its command runs.
import type { Command } from './io';

export const COMMANDS: Record<string, () => Promise<Command>> = {
  emulate: async () => (await import('../commands/emulate')).default,
  send: async () => (await import('../commands/send')).default,
  verify: async () => (await import('../commands/verify')).default,
  relay: async () => (await import('../commands/relay')).default,
  forward: async () => (await import('../commands/forward')).default,
  deliveries: async () => (await import('../commands/deliveries')).default,
  replay: async () => (await import('../commands/replay')).default,
  channels: async () => (await import('../commands/channels')).default,
  lint: async () => (await import('../commands/lint')).default,
};
