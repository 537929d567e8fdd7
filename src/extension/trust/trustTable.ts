// Which commands run in Restricted Mode (an untrusted workspace), and why the others do not. Pure
// data (no 'vscode'), so test/unit/extension/trust.test.ts checks it against package.json.
// A command not listed here needs trust: one added later is off in Restricted Mode until it is
// listed, never on by accident.
import { COMMANDS, SETTINGS, type CommandId } from '../ids';

/** The linter, its edits (editing a file is the user's own act), the read-only port report, the views. */
export const WORKS_IN_RESTRICTED_MODE: readonly CommandId[] = [
  COMMANDS.fixAllWorkflowNames,
  COMMANDS.fixAllInFile,
  COMMANDS.portWorkflows,
  COMMANDS.refresh,
  COMMANDS.showLogs,
  COMMANDS.showActivationTime,
  COMMANDS.loadMore,
  COMMANDS.relayMenu,
  COMMANDS.signOut,
];

/** What a command off in Restricted Mode would do, in words: the message says why it is off. */
const REASONS: Partial<Record<CommandId, string>> = {
  [COMMANDS.signIn]: 'it sends your token to the service',
  [COMMANDS.startRelay]: 'it runs the relay, which receives deliveries and forwards them',
  [COMMANDS.stopRelay]: 'it controls the relay',
  [COMMANDS.connectRelay]: 'it sends a relay token and forwards deliveries',
  [COMMANDS.disconnectRelay]: 'it controls the relay connection',
  [COMMANDS.forwardToLocalApp]: 'it forwards deliveries to an app',
  [COMMANDS.stopForwarding]: 'it changes where deliveries are forwarded',
  [COMMANDS.retryPending]: 'it forwards deliveries',
  [COMMANDS.replayDelivery]: 'it sends a delivery again',
  [COMMANDS.sendSampleEvent]: 'it sends a signed request',
  [COMMANDS.setUpRunner]: 'it runs the self-hosted runner',
  [COMMANDS.importIssues]: 'it sends a file to the service with your token',
  [COMMANDS.createSecret]: 'it sends a secret to the service with your token',
  [COMMANDS.copySigningSecret]: 'it copies a signing secret',
  [COMMANDS.changeRelayPort]: 'it moves the relay',
};

export function needsTrust(id: string): boolean {
  return !(WORKS_IN_RESTRICTED_MODE as readonly string[]).includes(id);
}

/** The message a command shows when it is off in Restricted Mode. */
export function restrictedMessage(id: string, title: string): string {
  const why = REASONS[id as CommandId] ?? 'it uses your token with the service';
  return `${title} is off in Restricted Mode: this workspace is not trusted, and ${why}. Trust the workspace to use it (no reload needed).`;
}

/**
 * Workspace-settable settings that steer where a token or a delivery goes or what is run: VS Code
 * ignores their workspace values in Restricted Mode (`capabilities.untrustedWorkspaces.
 * restrictedConfigurations`). baseUrl and relay.forwardUrl are machine-scoped (never from a workspace).
 */
export const RESTRICTED_SETTINGS: readonly string[] = [SETTINGS.relayPort, SETTINGS.repositories, SETTINGS.eventHeader, SETTINGS.deliveryHeader];

/** Workspace-settable settings that steer nothing of the kind: which files are linted, how often the view refreshes. */
export const HARMLESS_SETTINGS: readonly string[] = [SETTINGS.workflowGlobs, SETTINGS.refreshInterval];
