// The webhook tools for chat agents in the editor (vscode.lm.registerTool): each tool's definition
// is src/core/agentTools (package.json `languageModelTools` mirrors it, checked by a unit test), its
// logic runs there over editorBackend. Acting tools ask first (prepareInvocation's
// confirmationMessages say exactly what will happen). In Restricted Mode every tool but the
// read-only linter answers with the Restricted Mode message.
import * as vscode from 'vscode';
import type { ToolBackend } from '../../core/agentTools';
import { TOOLS } from '../../core/agentTools/definitions';
import type { CommandContext } from '../commands/context';
import { log } from '../log';
import { MANAGE_TRUST_ACTION } from '../trust/trust';
import { editorBackend } from './backend';

/** Work in Restricted Mode: they read the open workspace's files and nothing else. */
const WORKS_UNTRUSTED: readonly string[] = ['serviceHooks_lintWorkflow'];

/** One step of a tool call as VS Code drove it: prepareInvocation (with the confirmation it asked for), then invoke. */
export interface ToolCallStep {
  tool: string;
  phase: 'prepare' | 'invoke';
  confirmation?: { title: string; message: string };
}

export interface AgentToolsApi {
  /** The confirmation an acting tool would show. */
  confirmation(name: string, input: unknown): Promise<{ title: string; message: string } | undefined>;
  /**
   * The last steps of tool calls, oldest first (at most 50), for the integration suite: VS Code
   * confirms without a dialog in extension tests, so the suite checks here that an acting tool asked.
   */
  readonly steps: readonly ToolCallStep[];
}

/** The tools' logic (linter, doctor, samples) loads on the first call, not at activation. */
const tools = () => import('../../core/agentTools');
const confirm = async (backend: ToolBackend, name: string, input: unknown) => (await tools()).toolConfirmation(backend, name, input);

export function registerAgentTools(context: vscode.ExtensionContext, ctx: () => CommandContext): AgentToolsApi {
  const backend: ToolBackend = editorBackend(ctx);
  const steps: ToolCallStep[] = [];
  const record = (step: ToolCallStep) => steps.push(step) > 50 && steps.shift();
  // vscode.lm is there from VS Code 1.95 (engines ^1.100): guarded for hosts that leave it out.
  if (typeof vscode.lm?.registerTool !== 'function') {
    log().warn('this editor has no vscode.lm.registerTool: the agent tools are not registered');
    return { confirmation: (name, input) => confirm(backend, name, input), steps };
  }
  for (const tool of TOOLS) {
    context.subscriptions.push(
      vscode.lm.registerTool<object>(tool.name, {
        async prepareInvocation(options) {
          const c = tool.acting ? await confirm(backend, tool.name, options.input) : undefined;
          record({ tool: tool.name, phase: 'prepare', ...(c ? { confirmation: c } : {}) });
          return {
            invocationMessage: `${tool.title}…`,
            ...(c ? { confirmationMessages: { title: c.title, message: new vscode.MarkdownString().appendText(c.message) } } : {}),
          };
        },
        async invoke(options) {
          record({ tool: tool.name, phase: 'invoke' });
          let text: string;
          if (!vscode.workspace.isTrusted && !WORKS_UNTRUSTED.includes(tool.name))
            text = `${tool.title} is off: this workspace is in Restricted Mode (not trusted). Ask the developer to trust it (${MANAGE_TRUST_ACTION.title}); no reload is needed.`;
          else text = (await (await tools()).runTool(backend, tool.name, options.input)).text;
          log().info(`agent tool ${tool.name}: ${text.split('\n', 1)[0]}`);
          return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
        },
      }),
    );
  }
  return { confirmation: (name, input) => confirm(backend, name, input), steps };
}
