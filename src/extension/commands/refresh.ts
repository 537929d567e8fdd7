// Refresh: drops every cache (repositories, webhooks, deliveries) and re-reads the relay.
import { COMMANDS } from '../ids';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.refresh,
  async run(ctx) {
    ctx.services.invalidate();
    ctx.webhooks.refresh();
    await ctx.services.relay.reload();
    ctx.relayTree.refresh();
    return { refreshed: true };
  },
};
export default command;
