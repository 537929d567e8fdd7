// relay/shared/largeBodyGc.ts (issue 24): a process that takes a large body first collects what
// earlier ones left, and collects the young buffers a large body churns every 2 MiB; a small body
// costs no collection. Through the three places that hold large bodies: the ingress's BodyBytes,
// the subscription's FollowingBody (`forward`), and the relay's stream of a body to a subscriber
// (through a real hub, in binary-bodies.test.ts's harness).
import { strict as assert } from 'node:assert';
import { BodyBytes } from '../../../../relay/shared/bodyBytes';
import { LARGE_BODY_BYTES, largeBodyCollections, setMajorInterval, YOUNG_EVERY_BYTES } from '../../../../relay/shared/largeBodyGc';
import { FollowingBody } from '../../../../relay/client/followingBody';
import { subscribe } from '../../../../relay/client';
import type { ServerMessage } from '../../../../src/core/relay/protocol';
import { add, harness, TOKEN } from '../support/subscriberHarness';

const MiB = 1024 * 1024;

/** The collections `fn` ran. */
async function collectionsOf(fn: () => unknown): Promise<{ major: number; minor: number }> {
  const before = largeBodyCollections();
  await fn();
  const after = largeBodyCollections();
  return { major: after.major - before.major, minor: after.minor - before.minor };
}

/** `size` bytes into a BodyBytes, in 64 KiB chunks (as an ingress gets them). */
function receive(size: number): Buffer {
  const b = new BodyBytes(size);
  for (let at = 0; at < size; at += 64 * 1024) b.add(Buffer.alloc(Math.min(64 * 1024, size - at), 0x61));
  return b.done();
}

/** One young collection per YOUNG_EVERY_BYTES of `bytes` (the count carries over between bodies: one less or more). */
function assertYoung(minor: number, bytes: number): void {
  const expected = bytes / YOUNG_EVERY_BYTES;
  assert.ok(Math.abs(minor - expected) <= 1, `${minor} young collections for ${bytes / MiB} MiB (expected about ${expected})`);
}

describe('large bodies: garbage collected as they pass (relay/shared/largeBodyGc.ts)', function () {
  // One full collection per large body here (the relay allows one a second); the last case puts it back.
  beforeEach(() => setMajorInterval(0));
  after(() => setMajorInterval(1000));

  it('at most one full collection a second, however many large bodies start', async () => {
    let clock = 5_000;
    setMajorInterval(1000, () => clock);
    const three = await collectionsOf(() => [1, 2, 3].forEach(() => receive(LARGE_BODY_BYTES)));
    assert.equal(three.major, 1, 'three bodies in the same second');
    assertYoung(three.minor, 3 * LARGE_BODY_BYTES);
    clock += 999;
    assert.equal((await collectionsOf(() => receive(LARGE_BODY_BYTES))).major, 0, '999 ms later');
    clock += 1;
    assert.equal((await collectionsOf(() => receive(LARGE_BODY_BYTES))).major, 1, 'a second later');
  });

  it('the ingress: a full collection before a large body is taken, a young one per 2 MiB of it; none for a small body', async () => {
    assert.deepEqual(await collectionsOf(() => receive(LARGE_BODY_BYTES - 1)), { major: 0, minor: 0 });
    const large = await collectionsOf(() => receive(3 * LARGE_BODY_BYTES));
    assert.equal(large.major, 1);
    assertYoung(large.minor, 3 * LARGE_BODY_BYTES);
  });

  it('forward: a body that follows its message is collected around alike', async () => {
    const follow = (size: number) => {
      const f = new FollowingBody({ type: 'delivery', delivery: { seq: 1, bodyFollows: size } } as unknown as Extract<ServerMessage, { type: 'delivery' }>);
      for (let at = 0; at < size; at += 48 * 1024) f.add([Buffer.alloc(Math.min(48 * 1024, size - at))]);
      assert.ok(f.whole);
    };
    assert.deepEqual(await collectionsOf(() => follow(MiB)), { major: 0, minor: 0 });
    const large = await collectionsOf(() => follow(2 * LARGE_BODY_BYTES));
    assert.equal(large.major, 1);
    assertYoung(large.minor, 2 * LARGE_BODY_BYTES);
  });

  it("the relay's stream of a large body to a subscriber: a young collection per 2 MiB read", async () => {
    const h = await harness();
    try {
      await add(h.store, 'default', Buffer.alloc(2 * LARGE_BODY_BYTES, 0x62));
      let got!: () => void;
      const arrived = new Promise<void>((r) => (got = r));
      const sub = subscribe({ url: h.url, token: TOKEN, since: 0, onDelivery: () => got() });
      const during = await collectionsOf(() => arrived);
      sub.close();
      await sub.closed;
      // Both ends are in this process: the relay's reads (2) and the subscriber's receipt (1 full, 2 young).
      assert.equal(during.major, 1);
      assertYoung(during.minor, 2 * 2 * LARGE_BODY_BYTES);
    } finally {
      await h.close();
    }
  });
});
