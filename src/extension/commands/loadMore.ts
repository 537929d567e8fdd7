// "Load more…" rows: the next page of a webhook's deliveries, or more of the relay's live list.
import { COMMANDS } from '../ids';
import { UserError } from '../errors';
import { isNode, pickWebhook } from './pickers';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.loadMore,
  async run(ctx, arg) {
    if (isNode(arg) && arg.kind === 'relayMore') {
      ctx.relayTree.showMore();
      return { shown: ctx.relayTree.shown };
    }
    if (!isNode(arg) && !(arg as { webhookId?: string } | undefined)?.webhookId) throw new UserError('Load more is run from a "Load more…" row.');
    const { webhook } = await pickWebhook(ctx, arg);
    return { shown: await ctx.webhooks.loadMore(webhook) };
  },
};
export default command;
