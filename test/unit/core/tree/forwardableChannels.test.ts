// Pins issue 36 item 20 (the admin Forward… picker): a channel the relay serves with 0 deliveries
// (created, nothing received yet: not in GET /api/status) is offered too; set-up channels are not.
import { strict as assert } from 'node:assert';
import { forwardableChannels } from '../../../../src/core/tree';

describe('Forward…: the channels offered with the admin token', () => {
  it('every channel, with deliveries or none, by name; not those a set-up forwards', () => {
    const status = [
      { name: 'default', received: 4 },
      { name: 'alice', received: 2 },
    ];
    const listed = [
      { name: 'default', received: 4, ingressUrl: 'http://r/hooks/default' },
      { name: 'alice', received: 2, ingressUrl: 'http://r/hooks/alice' },
      { name: 'fresh', received: 0, ingressUrl: 'http://r/hooks/fresh' },
    ];
    assert.deepEqual(
      forwardableChannels(status, listed, new Set(['alice'])).map((c) => [c.name, c.received, c.ingressUrl]),
      [
        ['default', 4, 'http://r/hooks/default'],
        ['fresh', 0, 'http://r/hooks/fresh'],
      ],
    );
    assert.deepEqual(
      forwardableChannels(status, [], new Set()).map((c) => c.name),
      ['alice', 'default'],
      'a token that may not list channels: the status only',
    );
  });
});
