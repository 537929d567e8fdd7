// Pins issue 36 item 20 (Send Sample Event…'s picker): two webhooks on one channel share a URL, and
// their rows read alike; each row names the webhook's events (and its id when those match too).
import { strict as assert } from 'node:assert';
import { sampleTargetItems } from '../../../../src/core/tree';

describe("Send Sample Event's targets", () => {
  const repo = { owner: 'acme', repo: 'widgets' };
  const url = 'http://127.0.0.1:8788/hooks/alice';

  it('two webhooks on one channel are two rows that read differently: their events', () => {
    const items = sampleTargetItems(
      [
        { repo, webhook: { id: '1', url, events: ['push'] } },
        { repo, webhook: { id: '2', url, events: ['release', 'issue'] } },
      ],
      [{ url, description: 'channel alice' }],
    );
    assert.equal(items.length, 2, 'the channel is not offered again: its webhooks are');
    assert.deepEqual(
      items.map((i) => i.description),
      ['webhook of acme/widgets · push', 'webhook of acme/widgets · release, issue'],
    );
    assert.deepEqual(items[1]!.target.events, ['release', 'issue']);
  });

  it('with the same events too, the webhook id tells them apart; a channel without a webhook is offered', () => {
    const items = sampleTargetItems(
      [
        { repo, webhook: { id: '1', url, events: ['push'] } },
        { repo, webhook: { id: '2', url, events: ['push'] } },
      ],
      [{ url: 'http://127.0.0.1:8788/hooks/bob', description: 'channel bob' }],
    );
    assert.equal(new Set(items.map((i) => `${i.label} ${i.description}`)).size, 3);
    assert.equal(items[2]!.description, 'relay channel · channel bob');
  });
});
