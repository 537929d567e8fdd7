// A connection to a relay, built but not yet opened: what its token may do, the forwarder of its
// forward set-ups' channels (when it forwards) and the subscription that hands them deliveries.
// Each delivery goes to its app once: not when the relay's own --forward posts it to the same app,
// nor when a subscriber already did (before a Reload Window), nor from two windows (the lease).
import type * as vscode from 'vscode';
import { alreadyForwarded } from '../../core/relay/forwardOnce';
import { postingWsUrl, seqKey, type RelayAddress } from '../../core/tree';
import { settings } from '../config';
import { loadRelayClient } from '../deps';
import { log } from '../log';
import { extraCa, RelayConnection, tokenScope, type RelayDeliveryMessage, type TokenScope } from './connection';
import { EditorForwarder } from './forwarding';
import { setupOptions } from './setupForwarding';
import type { ForwardLease } from './lease';
import type { ForwardSetups } from './setups';

export interface Opening {
  conn: RelayConnection;
  forwarder: EditorForwarder | undefined;
  scope: TokenScope;
}

export interface OpenerOptions {
  setups: ForwardSetups;
  globalState: Pick<vscode.Memento, 'get' | 'update'>;
  lease: ForwardLease;
  /** Forwarding to the app fails (a sentence) or works again (undefined). */
  onForwardProblem: (problem: string | undefined) => void;
  /** Another window took forwarding over: `forwarder` must stop. */
  onLeaseLost: (forwarder: EditorForwarder) => void;
}

/** Builds the connection to `address` with `token`; `label` names it to people (`port 8788`, relay.example.com). */
export async function prepareConnection(o: OpenerOptions, address: RelayAddress, token: string, label: string): Promise<Opening> {
  const client = await loadRelayClient();
  const relay = address.httpUrl;
  const scope = await tokenScope(new client.RelayApi({ baseUrl: relay, token, timeoutMs: 10_000 }));
  const sessions = o.setups.of(relay);
  const forwards = sessions.length > 0 || (scope.kind === 'channel' && Boolean(settings().relayForwardUrl));
  const forwarder = forwards
    ? new EditorForwarder({
        client,
        targetFor: (channel, event) => o.setups.target(channel, relay, scope, event),
        ...setupOptions(client, sessions),
        store: { get: (k) => o.globalState.get<number>(k), set: (k, v) => o.globalState.update(k, v) },
        key: seqKey(relay),
        onProblem: o.onForwardProblem,
        log: (line) => log().info(`forward: ${line}`),
      })
    : undefined;
  // Never later than the oldest set-up: a resume point lost with a Reload Window must not skip deliveries.
  const floors = sessions.map((f) => f.since).filter((n): n is number => n !== undefined);
  const since = forwarder?.since ?? (floors.length ? Math.min(...floors) : undefined);
  const handle = forwarder && ((d: RelayDeliveryMessage) => forwardOnce(o, forwarder, d, relay, scope));
  const conn = new RelayConnection({
    // With the admin token it streams every channel but posts only its set-ups' to an app (`posts=`).
    endpoint: {
      httpUrl: relay,
      wsUrl:
        forwarder && scope.kind === 'admin'
          ? postingWsUrl(
              address.wsUrl,
              sessions.map((f) => f.channel),
            )
          : address.wsUrl,
      token,
      label,
    },
    client,
    since,
    handle,
    // A replay the relay asks for: only while this window holds forwarding (the lease).
    replay: forwarder && (async (d: RelayDeliveryMessage) => (o.lease.held() ? forwarder.replay(d) : undefined)),
    onOpen: (head) => (since === undefined ? forwarder?.remember(head) : undefined),
    log: (level, line) => log()[level](line),
    ca: address.tls ? extraCa() : undefined,
  });
  forwarder?.attach(conn); // later results of retried deliveries go to the relay through it
  return { conn, forwarder, scope };
}

/** One delivery to its app, unless that would be a second post; throws when another window took forwarding over. */
async function forwardOnce(o: OpenerOptions, forwarder: EditorForwarder, d: RelayDeliveryMessage, relay: string, scope: TokenScope) {
  if (!o.lease.held()) {
    o.onLeaseLost(forwarder);
    throw new Error('another window forwards these deliveries now');
  }
  const to = o.setups.target(d.channel, relay, scope, d.event);
  const why = to ? alreadyForwarded(d.forward, to) : undefined;
  if (why) {
    log().info(
      `forward: #${d.seq} ${d.channel} not posted to ${to}: ${why === 'relay' ? "the relay's own --forward posts it there" : 'a subscriber already forwarded it'}`,
    );
    return undefined;
  }
  return forwarder.handle(d);
}
