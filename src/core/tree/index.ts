// View models for the extension's trees. Pure: no vscode, no I/O.
export * from './types';
export * from './labels';
export * from './paging';
export * from './nodes';
export * from './relayModel';
export * from './refreshLoop';
export * from './relayAddress';
export * from './relayStatusBar';
export * from './forwardSession';
export * from './webhookUrlChoices';
export * from './connectError';
export * from './relayMenu';
export * from './relayGroups';
// which channel a webhook URL delivers to: read back where ingress URLs are built
export { relayChannelFor, relayUrlsOf, type RelayUrls } from '../relay/ingressChannel';
export * from './webhookDeliveries';
export * from './retryRoute';
export * from './sampleTargets';
