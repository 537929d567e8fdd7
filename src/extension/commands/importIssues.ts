// Import Issues from File…: validate all records, then chunked POSTs under a cancellable progress.
// The service unreachable: stop at that chunk and offer Retry, which resumes from it (`from`).
import * as vscode from 'vscode';
import { networkErrorText } from '../../core/client/errors';
import { formatImportReport, formatProblems, runImport, validateIssueFile } from '../../core/issues';
import { repoKey } from '../../core/tree';
import { isServiceError } from '../contracts';
import { COMMANDS } from '../ids';
import { Cancelled, UserError } from '../errors';
import { log } from '../log';
import { asArgs, pickRepo } from './pickers';
import type { CommandModule } from './context';

export const IMPORT_CHUNK = 50;

/** Why the service cannot be reached, or undefined for any other failure (those are listed per chunk). */
function unreachable(err: unknown): string | undefined {
  if (!isServiceError(err)) return undefined;
  if (err.kind === 'timeout') return 'no answer in time';
  return err.kind === 'network' ? networkErrorText((err as { code?: string }).code) : undefined;
}

const command: CommandModule = {
  id: COMMANDS.importIssues,
  async run(ctx, arg) {
    const args = asArgs<{ file: string; chunkSize: number; from: number }>(arg);
    let uri: vscode.Uri;
    if (args.file) uri = vscode.Uri.file(args.file);
    else {
      const picked = await vscode.window.showOpenDialog({ title: 'Import Issues from File', filters: { JSON: ['json'] }, canSelectMany: false });
      if (!picked?.[0]) throw new Cancelled();
      uri = picked[0];
    }
    const parsed = validateIssueFile(new TextDecoder().decode(await vscode.workspace.fs.readFile(uri)));
    if (!parsed.ok) {
      log().info(`import ${uri.fsPath}: ${parsed.problems.length} problem(s)\n${formatProblems(parsed.problems, Infinity)}`);
      void vscode.window.showErrorMessage(`Nothing imported: ${parsed.problems.length} problem(s) in the file.`, {
        modal: !args.file,
        detail: formatProblems(parsed.problems),
      });
      return { imported: 0, problems: parsed.problems };
    }
    if (parsed.records.length === 0) throw new UserError('The file holds no issues.');
    const repo = await pickRepo(ctx, arg);
    const client = await ctx.services.client();
    const from = Number.isInteger(args.from) && args.from! > 0 ? args.from! : 0;
    const total = parsed.records.length - Math.min(from, parsed.records.length);
    let done = 0;
    const report = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Importing ${total} issues`, cancellable: true },
      (progress, cancel) =>
        runImport(parsed.records, {
          chunkSize: args.chunkSize ?? IMPORT_CHUNK,
          from,
          send: (part) => client.importIssues(repo, part),
          unreachable,
          cancelled: () => cancel.isCancellationRequested,
          onChunk: (r) => {
            const now = r.imported.length + r.notSent.length + r.failed.reduce((n, f) => n + f.numbers.length, 0);
            progress.report({ increment: (100 * (now - done)) / Math.max(total, 1), message: `${r.imported.length} imported` });
            done = now;
          },
        }),
    );
    const text = formatImportReport(report);
    log().info(`import ${uri.fsPath}: ${text}`);
    if (report.stopped) {
      // Retry resumes at the record it stopped at, in the same repository, from the same file.
      const retry = { file: uri.fsPath, repo: repoKey(repo), from: report.stopped.at, ...(args.chunkSize ? { chunkSize: args.chunkSize } : {}) };
      void vscode.window
        .showErrorMessage(text, 'Retry', 'Show Logs')
        .then((c) => (c === 'Retry' ? vscode.commands.executeCommand(COMMANDS.importIssues, retry) : c && log().show(true)));
      return { ...report, retry };
    }
    if (report.failed.length || report.notSent.length) void vscode.window.showWarningMessage(text, 'Show Logs').then((c) => c && log().show(true));
    else void vscode.window.showInformationMessage(text);
    return report;
  },
};
export default command;
