// A forward set-up's choices in the editor (issue 38 item 7), src/core/relay/forwardRouting.ts:
// the filter follows the subscription until an event is left out, an event may have its own app,
// and wrong choices are refused in words.
import { strict as assert } from 'node:assert';
import {
  eventRouteRows,
  filters,
  routeOf,
  routingChoicesProblem,
  routingDescription,
  routingTargets,
  withEventRoute,
  type ForwardRouting,
} from '../../../../src/core/relay/forwardRouting';
import { EVENT_TYPES } from '../../../../src/core/events/types';
import { localAppUrlProblem, shortUrl } from '../../../../src/core/tree';

const A = 'http://127.0.0.1:4001/hook';
const B = 'http://localhost:4002/release';
const SUBSCRIBED = ['push', 'release', 'issues'];

describe('forward set-up routing (editor)', () => {
  it('with no choices every event goes to the default app, and nothing is filtered', () => {
    const r: ForwardRouting = { to: A };
    assert.equal(routeOf(r, 'push'), A);
    assert.equal(routeOf(r, undefined), A);
    assert.equal(filters(r), false);
    assert.deepEqual(routingTargets(r), [A]);
  });

  it('an event with its own app goes there; one left out is skipped; the filter is kept only then', () => {
    let r = withEventRoute({ to: A }, SUBSCRIBED, 'release', 'own', B);
    assert.equal(r.events, undefined, 'every subscribed event still forwarded: the filter follows the subscription');
    assert.deepEqual(r.routes, { release: B });
    r = withEventRoute(r, SUBSCRIBED, 'issues', 'skipped');
    assert.deepEqual(r.events, ['push', 'release']);
    assert.equal(routeOf(r, 'push'), A);
    assert.equal(routeOf(r, 'release'), B);
    assert.equal(routeOf(r, 'issues'), undefined);
    assert.equal(routeOf(r, undefined), undefined, 'an event-less delivery is outside an event filter');
    assert.equal(filters(r), true);
    assert.deepEqual(routingTargets(r), [A, B]);
    assert.deepEqual(eventRouteRows(SUBSCRIBED, r), [
      { event: 'push', how: 'default', url: A },
      { event: 'release', how: 'own', url: B },
      { event: 'issues', how: 'skipped' },
    ]);
    // Back to the default app, and forwarded again: no route, no filter.
    r = withEventRoute(withEventRoute(r, SUBSCRIBED, 'release', 'default'), SUBSCRIBED, 'issues', 'default');
    assert.deepEqual(r, { to: A });
  });

  it('describes a set-up for the Relay view: its routes and its filter', () => {
    const r: ForwardRouting = { to: A, routes: { release: B, issues: A }, events: ['push', 'release'] };
    assert.equal(routingDescription(r, shortUrl), 'release → localhost:4002 · only push, release');
    assert.equal(routingDescription({ to: A }, shortUrl), '');
    assert.equal(routingDescription({ to: 'https://localhost:8443/', skipVerify: true }, shortUrl), 'certificate not checked');
  });

  it('refuses wrong choices in words', () => {
    const problem = (r: ForwardRouting) => routingChoicesProblem(r, EVENT_TYPES, localAppUrlProblem);
    assert.equal(problem({ to: A, routes: { release: B }, events: ['push', 'release'] }), undefined);
    assert.match(problem({ to: A, events: ['pushh'] })!, /Unknown event\(s\): pushh \(known: .*push/);
    assert.match(problem({ to: A, routes: { nope: B } })!, /Unknown event\(s\): nope/);
    assert.equal(problem({ to: A, events: [] }), 'Forward at least one event.');
    assert.match(problem({ to: 'ftp://localhost/x' })!, /http:\/\/ or https:\/\//);
    assert.match(problem({ to: A, routes: { release: 'http://user:pw@localhost:4002/' } })!, /^The app for release: .*user or password/);
    assert.equal(problem({ to: 'https://localhost:8443/', routes: { push: 'https://[::1]:8444/' }, skipVerify: true }), undefined);
    assert.match(
      problem({ to: 'https://localhost:8443/', routes: { push: 'https://hooks.example.com/' }, skipVerify: true })!,
      /for an app on this machine only .* hooks\.example\.com is not: trust its CA with serviceHooks\.relay\.forwardCa/,
    );
    // An http app far away with skip-verify: nothing to skip there, so nothing to refuse.
    assert.equal(problem({ to: 'https://localhost:8443/', routes: { push: 'http://hooks.example.com/' }, skipVerify: true }), undefined);
  });
});
