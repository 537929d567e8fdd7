// One short pull from a consumer (the stream followers' and the shared forwarding's), ending on
// its own. The client's fetch ends when the server says the pull expired, or fails when two idle
// heartbeats go missing; while its connection is down it waits for the reconnect instead, and a
// pull request left on a server that died held its caller that long. The legacy client ended every
// fetch on a timer at 1.05 × `expires`; this keeps that bound.
import type { Consumer, ConsumerMessages } from '@nats-io/jetstream';

export interface ShortPull {
  messages: ConsumerMessages;
  /** After the pull failed: whether the consumer was deleted under it (its "consumer deleted" notification, not its words). */
  deleted(): Promise<boolean>;
}

export async function shortPull(consumer: Consumer, opts: { max_messages: number; expires: number }): Promise<ShortPull> {
  const messages = await consumer.fetch(opts);
  const timer = setTimeout(() => void messages.close(), Math.round(opts.expires * 1.05));
  const done = () => clearTimeout(timer);
  void messages.closed().then(done, done);
  let deleted = false;
  // The notifications end when the pull does (the client stops them with it).
  const watched = (async () => {
    for await (const n of messages.status()) if (n.type === 'consumer_deleted') deleted = true;
  })().catch(() => undefined);
  return { messages, deleted: () => watched.then(() => deleted) };
}
