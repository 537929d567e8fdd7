// Every id the extension shares with package.json. test/unit/extension-model/manifest.test.ts
// checks these against `contributes` in both directions.

import { DEFAULT_BASE_URL, DEFAULT_RELAY_PORT } from '../core/defaults';
import { DELIVERY_HEADER, EVENT_HEADER } from '../core/signing';

export const COMMANDS = {
  signIn: 'serviceHooks.signIn',
  signOut: 'serviceHooks.signOut',
  addWebhook: 'serviceHooks.addWebhook',
  editEvents: 'serviceHooks.editEvents',
  rotateWebhookSecret: 'serviceHooks.rotateWebhookSecret',
  deleteWebhook: 'serviceHooks.deleteWebhook',
  pingWebhook: 'serviceHooks.pingWebhook',
  sendSampleEvent: 'serviceHooks.sendSampleEvent',
  retryDelivery: 'serviceHooks.retryDelivery',
  retryAllFailed: 'serviceHooks.retryAllFailed',
  replayDelivery: 'serviceHooks.replayDelivery',
  openDelivery: 'serviceHooks.openDelivery',
  explainSignature: 'serviceHooks.explainSignature',
  copyAsCurl: 'serviceHooks.copyAsCurl',
  startRelay: 'serviceHooks.startRelay',
  stopRelay: 'serviceHooks.stopRelay',
  connectRelay: 'serviceHooks.connectRelay',
  disconnectRelay: 'serviceHooks.disconnectRelay',
  retryPending: 'serviceHooks.retryPending',
  forwardToLocalApp: 'serviceHooks.forwardToLocalApp',
  stopForwarding: 'serviceHooks.stopForwarding',
  importIssues: 'serviceHooks.importIssues',
  createSecret: 'serviceHooks.createSecret',
  setUpRunner: 'serviceHooks.setUpRunner',
  fixAllWorkflowNames: 'serviceHooks.fixAllWorkflowNames',
  fixAllInFile: 'serviceHooks.fixAllInFile',
  portWorkflows: 'serviceHooks.portWorkflows',
  refresh: 'serviceHooks.refresh',
  showLogs: 'serviceHooks.showLogs',
  showActivationTime: 'serviceHooks.showActivationTime',
  loadMore: 'serviceHooks.loadMore',
  relayMenu: 'serviceHooks.relayMenu',
  copySigningSecret: 'serviceHooks.copySigningSecret',
  changeRelayPort: 'serviceHooks.changeRelayPort',
} as const;
export type CommandId = (typeof COMMANDS)[keyof typeof COMMANDS];

/** Commands that only make sense with an argument (tree rows, code actions): hidden from the palette. */
export const HIDDEN_COMMANDS: readonly CommandId[] = [COMMANDS.loadMore];

/** Webview panel types (not contributed in package.json). */
export const WEBVIEWS = {
  portReport: 'serviceHooks.portReport',
} as const;

export const VIEW_CONTAINER = 'service';
export const VIEWS = {
  webhooks: 'serviceHooks.webhooks',
  relay: 'serviceHooks.relay',
} as const;

export const SETTINGS = {
  baseUrl: 'serviceHooks.baseUrl',
  repositories: 'serviceHooks.repositories',
  relayPort: 'serviceHooks.relay.port',
  relayForwardUrl: 'serviceHooks.relay.forwardUrl',
  relayForwardCa: 'serviceHooks.relay.forwardCa',
  workflowGlobs: 'serviceHooks.lint.workflowGlobs',
  eventHeader: 'serviceHooks.eventHeader',
  deliveryHeader: 'serviceHooks.deliveryHeader',
  refreshInterval: 'serviceHooks.refreshInterval',
} as const;

export const DEFAULTS = {
  baseUrl: DEFAULT_BASE_URL,
  relayPort: DEFAULT_RELAY_PORT,
  workflowGlobs: ['**/.github/workflows/*.{yml,yaml}', '**/action.{yml,yaml}'],
  eventHeader: EVENT_HEADER,
  deliveryHeader: DELIVERY_HEADER,
  refreshInterval: 10,
} as const;

/** Context keys used in `when` clauses. */
export const CONTEXT = {
  signedIn: 'serviceHooks.signedIn',
  hasRepository: 'serviceHooks.hasRepository',
  hasWebhooks: 'serviceHooks.hasWebhooks',
  relayRunning: 'serviceHooks.relayRunning',
  /** the active editor shows a workflow file (serviceHooks.lint.workflowGlobs) */
  workflowFileActive: 'serviceHooks.workflowFileActive',
  /** Connected (or trying to connect) to a remote relay through "Connect to Relay…". */
  relayRemote: 'serviceHooks.relayRemote',
} as const;

/** contextValue of tree rows (see src/core/tree/nodes.ts). */
export const VIEW_ITEMS = [
  'repository',
  'webhook',
  'deliveries',
  'delivery.ok',
  'delivery.failed',
  'delivery.ok.inRelay',
  'delivery.failed.inRelay',
  'loadMore',
  'message',
  'message.auth',
  'message.signedOut',
  'message.network',
  'message.config',
  'message.service',
  'relayDelivery.verified',
  'relayDelivery.unverified',
  'relayDelivery.rejected',
  'relayChannel',
  'relayForwarding',
] as const;

export const DELIVERY_SCHEME = 'service-hooks-delivery';
/** SecretStorage: the token for a base URL is under `${SECRET_KEY}@<base URL>` (tokenStore.ts). */
export const SECRET_KEY = 'serviceHooks.token';
/** Where versions before 0.2 kept one token for every address. */
export const LEGACY_SECRET_KEY = 'serviceHooks.token';
export const EXTENSION_ID = 'service-hooks.service-hooks';

/** Keys of the relay's state: SecretStorage (tokens, the local relay's secret) and globalState (the remote relay in use). */
export const RELAY_STORAGE = {
  /** globalState: `{ address }` of the remote relay connected through "Connect to Relay…". */
  remote: 'serviceHooks.relay.remote',
  /** SecretStorage: the secret the local relay verifies with, shared with Add Webhook. */
  localSecret: 'serviceHooks.relay.localSecret',
  /** SecretStorage: a remote relay's token, per address (`<prefix><https://host>`). */
  remoteTokenPrefix: 'serviceHooks.relay.token:',
  /** globalState: ForwardSession[] ("Forward Webhooks to Local App"). */
  sessions: 'serviceHooks.relay.sessions',
  /** SecretStorage: a channel's signing secret the editor made (`<prefix><relay base>#<channel>`): Copy Signing Secret. */
  channelSecretPrefix: 'serviceHooks.relay.channelSecret:',
  /** globalState: the address last typed into Connect to Relay… (pre-filled next time; kept after Disconnect). */
  lastAddress: 'serviceHooks.relay.lastAddress',
  /** globalState: the loopback warning of Forward with the local relay was shown. */
  loopbackWarned: 'serviceHooks.relay.loopbackWarned',
} as const;

/** The "Open Settings" button of an error about serviceHooks.baseUrl. */
export const OPEN_SETTINGS_ACTION = { title: 'Open Settings', command: 'workbench.action.openSettings', arguments: [SETTINGS.baseUrl] } as const;

/** contributes.walkthroughs: Getting Started (walkthrough.ts). */
export const WALKTHROUGH_ID = 'serviceHooks.gettingStarted';
/** globalState: the walkthrough was opened once (or would have been); it never opens by itself again. */
export const WALKTHROUGH_SHOWN_KEY = 'serviceHooks.walkthroughShown';
