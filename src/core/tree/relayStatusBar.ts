// The relay status bar's text, tooltip and command, as plain data, for a local or a remote relay.
import { shortUrl } from './relayAddress';
import type { RelayState } from './relayModel';

export interface StatusBarInput {
  state: RelayState;
  /** Local relay: its port. */
  port?: number;
  /** Remote relay: its label (relay.example.com). */
  remote?: string;
  /** Where deliveries are forwarded (URL): the first of forwardTargets(). */
  forwardTo?: string;
  /** How many other apps deliveries are forwarded to as well. */
  otherTargets?: number;
  /** A problem sentence (failed start, forwarding failing). */
  detail?: string;
  /** The relay process was started by this window. */
  ownsProcess?: boolean;
  /** Forwarding to the local app is failing (retrying). */
  forwardFailing?: boolean;
}

export interface StatusBarModel {
  text: string;
  tooltip: string;
  /** Command id run on click: the relay menu (relayMenu.ts), never an action that destroys at once. */
  command?: 'serviceHooks.relayMenu';
}

const MENU = 'serviceHooks.relayMenu';

/** `relay.example.com ⇄ localhost:3000` plus the state; `Relay :8788` for a local relay. */
export function relayStatusBar(s: StatusBarInput): StatusBarModel {
  if (s.remote) return remoteStatusBar(s, s.remote);
  switch (s.state) {
    case 'running':
      return {
        text: `$(radio-tower) Relay :${s.port}`,
        tooltip: `Relay running on port ${s.port}${s.ownsProcess ? ' (started here)' : ''}. Click for relay actions.`,
        command: MENU,
      };
    case 'starting':
    case 'connecting':
      return {
        text: '$(loading~spin) Relay',
        tooltip: s.state === 'starting' ? 'Relay starting…' : `Connecting to the relay on port ${s.port ?? '?'}…`,
        command: MENU,
      };
    case 'offline':
    case 'failed':
    case 'stopped':
      return {
        text: s.state === 'failed' ? '$(error) Relay' : '$(debug-disconnect) Relay off',
        tooltip: s.detail ?? 'Relay not running. Click for relay actions.',
        command: MENU,
      };
  }
}

function remoteStatusBar(s: StatusBarInput, remote: string): StatusBarModel {
  const others = s.otherTargets ?? 0;
  const pair = s.forwardTo ? `${remote} ⇄ ${shortUrl(s.forwardTo)}${others ? ` +${others}` : ''}` : remote;
  const forwarding = s.forwardTo
    ? `forwarding to ${s.forwardTo}${others ? ` and ${others} other app${others > 1 ? 's' : ''}` : ''}`
    : 'not forwarding (Forward Webhooks to Local App… sets it up)';
  switch (s.state) {
    case 'running':
      return s.forwardFailing
        ? {
            text: `$(warning) ${pair}`,
            tooltip: `Connected to ${remote}; ${s.detail ?? 'the local app does not answer 2xx'}: retrying. Click for relay actions.`,
            command: MENU,
          }
        : { text: `$(radio-tower) ${pair}`, tooltip: `Connected to ${remote}, ${forwarding}. Click for relay actions.`, command: MENU };
    case 'starting':
    case 'connecting':
      return { text: `$(loading~spin) ${pair}`, tooltip: `Connecting to ${remote}…${s.detail ? ` (${s.detail})` : ''}`, command: MENU };
    case 'offline':
    case 'failed':
    case 'stopped':
      return { text: `$(debug-disconnect) ${pair}`, tooltip: s.detail ?? `Not connected to ${remote}. Click for relay actions.`, command: MENU };
  }
}
