// Pins the relay's one REST path table: what the clients build is what the server's patterns match,
// parameters encoded one way and read back, and a route's parameters checked by type.
import { strict as assert } from 'node:assert';
import { REST_PATHS, restPath, restPattern, type RestRoute } from '../../../../src/core/relay/restPaths';

describe('the relay REST paths (one table for server and clients)', () => {
  it('builds each path, and its own pattern (only its own) matches it', () => {
    const params: Partial<Record<RestRoute, object>> = { delivery: { seq: 7 }, replay: { seq: 7 }, pageExplain: { seq: 7 }, channel: { name: 'team.a' } };
    for (const route of Object.keys(REST_PATHS) as RestRoute[]) {
      const path = (restPath as (r: RestRoute, p?: object) => string)(route, params[route]);
      const matching = (Object.keys(REST_PATHS) as RestRoute[]).filter((r) => restPattern(r).test(path));
      assert.deepEqual(matching, [route], path);
    }
  });
  it('fills parameters encoded; the pattern gives them back as sent', () => {
    assert.equal(restPath('replay', { seq: 42 }), '/api/deliveries/42/replay');
    assert.equal(restPath('channel', { name: 'a b/c' }), '/api/channels/a%20b%2Fc');
    assert.deepEqual(restPattern('channel').exec('/api/channels/a%20b%2Fc')?.slice(1), ['a%20b%2Fc']);
    assert.deepEqual(restPattern('replay').exec('/api/deliveries/42/replay')?.slice(1), ['42']);
    assert.equal(restPattern('delivery').test('/api/deliveries/x'), false, 'a seq is digits');
    assert.equal(restPattern('pageExplain').test(`/page/explain/${'9'.repeat(15)}`), true);
    assert.equal(restPattern('delivery').test(`/api/deliveries/${'9'.repeat(16)}`), false, 'at most 15 digits: Number() would round more');
    assert.equal(restPattern('channels').test('/api/channels/'), false, 'exact: no trailing slash');
    assert.equal(restPattern('status').test('/api/statusX'), false);
  });
  it('checks parameters by type (npm run check-types); nothing checks them at run time', () => {
    // @ts-expect-error a delivery needs its seq
    assert.equal(restPath('delivery'), '/api/deliveries/undefined');
    // @ts-expect-error the status takes none
    assert.equal(restPath('status', { seq: 1 }), '/api/status');
    // @ts-expect-error a seq is a number
    assert.equal(restPath('replay', { seq: '1' }), '/api/deliveries/1/replay');
  });
});
