// What a click on the relay's status bar item offers, as plain data: a menu, never an action that
// destroys at once (it used to disconnect and forget the token, or stop the relay, in one click).
import type { RelayState } from './relayModel';

export interface RelayMenuInput {
  state: RelayState;
  /** A remote relay (Connect to Relay…) is in use or remembered. */
  remote?: string;
  /** The local relay's port when one is attached. */
  port?: number;
  /** The relay process was started by this window. */
  ownsProcess: boolean;
  /** A signing secret the editor holds for the relay in use (a set-up's channel, the local relay's own). */
  hasSecret: boolean;
}

export type RelayMenuCommand =
  | 'serviceHooks.relay.focus'
  | 'serviceHooks.copySigningSecret'
  | 'serviceHooks.disconnectRelay'
  | 'serviceHooks.stopRelay'
  | 'serviceHooks.connectRelay'
  | 'serviceHooks.startRelay'
  | 'serviceHooks.showLogs'
  | 'serviceHooks.changeRelayPort';

export interface RelayMenuItem {
  label: string;
  detail?: string;
  command: RelayMenuCommand;
  /** Passed to the command: the menu's Disconnect… and Stop Relay… ask before they act. */
  args?: { confirm: true };
}

export function relayMenu(s: RelayMenuInput): RelayMenuItem[] {
  const up = s.state === 'running' || s.state === 'connecting' || s.state === 'starting';
  const items: RelayMenuItem[] = [{ label: '$(list-tree) Show Relay View', command: 'serviceHooks.relay.focus' }];
  if (s.hasSecret)
    items.push({
      label: '$(key) Copy Signing Secret',
      detail: 'The secret your app verifies X-Service-Signature with',
      command: 'serviceHooks.copySigningSecret',
    });
  if (s.remote) {
    if (up)
      items.push({
        label: '$(debug-disconnect) Disconnect…',
        detail: `Close the connection to ${s.remote} and forget its token`,
        command: 'serviceHooks.disconnectRelay',
        args: { confirm: true },
      });
    else items.push({ label: '$(plug) Connect to Relay…', detail: `Connect to ${s.remote} again, or to another relay`, command: 'serviceHooks.connectRelay' });
    return items;
  }
  if (s.ownsProcess || (up && s.port !== undefined)) {
    items.push({
      label: '$(debug-stop) Stop Relay…',
      detail: s.ownsProcess ? `Stop the relay started here on port ${s.port ?? '?'}` : `Let go of the relay on port ${s.port ?? '?'} (it keeps running)`,
      command: 'serviceHooks.stopRelay',
      args: { confirm: true },
    });
    return items;
  }
  items.push(
    { label: '$(play) Start Relay', command: 'serviceHooks.startRelay' },
    { label: '$(plug) Connect to Relay…', command: 'serviceHooks.connectRelay' },
  );
  if (s.state === 'failed')
    items.push(
      { label: '$(output) Show Logs', command: 'serviceHooks.showLogs' },
      { label: '$(settings-gear) Change Relay Port…', command: 'serviceHooks.changeRelayPort' },
    );
  return items;
}
