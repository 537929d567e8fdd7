// A JetStream KV bucket every relay instance keeps in step with: opened (made at first use), its
// entries applied as they are and then as they change. The one place the bucket and watch calls of
// the NATS client are made for the shared channels (./channelKv.ts) and page sessions (./sessionKv.ts).
import type { JetStreamClient, KV, KvEntry, KvOptions } from 'nats';

/** Opens bucket `name` and applies its entries to `apply`; resolves once the present ones were applied. */
export async function followBucket(
  js: JetStreamClient,
  name: string,
  options: Partial<KvOptions>,
  apply: (e: KvEntry) => void,
): Promise<{ kv: KV; stop(): void }> {
  const kv = await js.views.kv(name, options);
  let loaded!: () => void;
  const initial = new Promise<void>((r) => (loaded = r));
  const watch = await kv.watch({ key: '>', initializedFn: () => loaded() });
  void (async () => {
    for await (const e of watch) apply(e);
  })();
  await initial;
  return { kv, stop: () => watch.stop() };
}

/** A value as the buckets hold it: JSON, UTF-8. */
export function encoded(value: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value));
}
