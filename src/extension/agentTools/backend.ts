// The agent tools' backend in the editor: the same service client (Services.client, so Restricted
// Mode and "not signed in" apply as to the tree), the same relay connection (RelayManager: its
// listing, journal, replay to the channel's app) and the same held secrets as the commands.
// Workflow files are read and written through VS Code's file system and documents (virtual
// workspaces too); a write is a WorkspaceEdit, saved, so Undo works.
import * as vscode from 'vscode';
import type { RelaySide, ToolBackend } from '../../core/agentTools';
import { describeToolError, ToolSetupError } from '../../core/agentTools/errors';
import type { CommandContext } from '../commands/context';
import { NotSignedInError, UserError } from '../errors';
import { RELAY_STORAGE } from '../ids';
import { lintRulesFor } from '../lint/lintRules';
import { statusOf } from '../relay/servicePost';

const HINTS = {
  signIn: 'ask the developer to run "Service Webhooks: Sign In"',
  relay: 'ask the developer to start a relay ("Service Webhooks: Start Relay") or connect to one ("Connect to Relay…")',
};

/** The workspace file a tool's path names: the first folder holding it (the first folder when none does). */
async function workspaceUri(path: string): Promise<vscode.Uri> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length === 0) throw new ToolSetupError('No folder is open in the editor: open the repository first.');
  const rel = path.replace(/^\.?[\\/]+/, '');
  for (const f of folders) {
    const uri = vscode.Uri.joinPath(f.uri, rel);
    if (
      await vscode.workspace.fs.stat(uri).then(
        () => true,
        () => false,
      )
    )
      return uri;
  }
  throw new ToolSetupError(`No file ${path} in the workspace: give a path relative to the workspace folder, e.g. .github/workflows/ci.yml.`);
}

export function editorBackend(ctx: () => CommandContext): ToolBackend {
  const relayManager = () => ctx().services.relay;
  return {
    service: () => ctx().services.client(),
    async relay(): Promise<RelaySide> {
      const relay = relayManager();
      if (!relay.connected) throw new ToolSetupError(`No relay is in use in the editor: ${HINTS.relay}.`);
      return {
        label: relay.remoteLabel ? `the relay ${relay.remoteLabel}` : `the local relay on port ${relay.port}`,
        listDeliveries: (q) => relay.listDeliveries(q),
        getDelivery: (seq) => relay.getDelivery(seq),
        replay: async (seq) => {
          const { to, response } = await relay.replayDelivery(seq);
          void relay.reload();
          return { ...(to ? { to } : {}), attempts: response.attempts };
        },
        ingressUrl: (channel) => relay.ingressUrl(channel),
      };
    },
    repositories: () => ctx().services.repositories(),
    secretFor: (url) => relayManager().heldSecretFor(url),
    // Send Sample Event's own post (the relay connection's trust, the CA hint on failure), not the host's bare fetch.
    post: (url, headers, body) => statusOf(url, 'the sample event', headers, body),
    async readWorkflow(path) {
      const uri = await workspaceUri(path);
      const doc = await vscode.workspace.openTextDocument(uri);
      return { name: vscode.workspace.asRelativePath(uri), text: doc.getText() };
    },
    async writeWorkflow(path, text) {
      const doc = await vscode.workspace.openTextDocument(await workspaceUri(path));
      const edit = new vscode.WorkspaceEdit();
      edit.replace(doc.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), text);
      if (!(await vscode.workspace.applyEdit(edit))) throw new ToolSetupError(`The editor refused the edit of ${path}.`);
      await doc.save();
    },
    lintRules: async (path) => lintRulesFor(await workspaceUri(path)),
    async knownSecrets() {
      const c = ctx();
      const relay = c.services.relay;
      const held = await relay.signingSecrets().catch(() => []);
      const remote = relay.relayBase ? await c.extension.secrets.get(`${RELAY_STORAGE.remoteTokenPrefix}${relay.relayBase}`) : undefined;
      return [await c.services.currentToken(), remote, ...held.map((h) => h.secret)].filter((s): s is string => !!s);
    },
    describeError(err) {
      if (err instanceof NotSignedInError) return `Not signed in to the service: ${HINTS.signIn}.`;
      if (err instanceof UserError) return err.message;
      return describeToolError(err, HINTS);
    },
  };
}
