// A JetStream KV bucket every relay instance keeps in step with: opened (made at first use), its
// entries applied as they are and then as they change. The one place the bucket and watch calls of
// the NATS client are made: the shared channels (./channelKv.ts) and page sessions (./sessionKv.ts).
import type { JetStreamClient } from '@nats-io/jetstream';
import { Kvm, type KV, type KvEntry, type KvOptions } from '@nats-io/kv';

/** Opens bucket `name` and applies its entries to `apply`; resolves once the present ones were applied. */
export async function followBucket(
  js: JetStreamClient,
  name: string,
  options: Partial<KvOptions>,
  apply: (e: KvEntry) => void,
): Promise<{ kv: KV; stop(): void }> {
  const kv = await new Kvm(js).create(name, options);
  // The present entries are applied once the watch has handed over the bucket's last message as it
  // stood before the watch began (or a later one): the watch hands over each key's last value in
  // the stream's order, and the stream's last message is one of them. (The client no longer says
  // when the present entries end.)
  const { last_seq: last, messages } = (await kv.status()).streamInfo.state;
  let loaded!: () => void;
  const initial = new Promise<void>((r) => (loaded = r));
  if (messages === 0) loaded();
  const watch = await kv.watch({ key: '>' });
  void (async () => {
    for await (const e of watch) {
      apply(e);
      if (e.revision >= last) loaded();
    }
  })();
  await initial;
  return { kv, stop: () => watch.stop() };
}

/** A value as the buckets hold it: JSON, UTF-8. */
export function encoded(value: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value));
}
