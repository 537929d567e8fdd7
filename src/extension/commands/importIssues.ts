// Import Issues from File…: validate all records, then chunked POSTs under a cancellable progress.
import * as vscode from 'vscode';
import { chunk, chunkFailureReason, formatImportReport, formatProblems, validateIssueFile, type ImportReport } from '../../core/issues';
import { COMMANDS } from '../ids';
import { Cancelled, UserError } from '../errors';
import { log } from '../log';
import { asArgs, pickRepo } from '../pickers';
import type { CommandModule } from './context';

export const IMPORT_CHUNK = 50;

const command: CommandModule = {
  id: COMMANDS.importIssues,
  async run(ctx, arg) {
    const args = asArgs<{ file: string; chunkSize: number }>(arg);
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
      void vscode.window.showErrorMessage(`Nothing imported: ${parsed.problems.length} problem(s) in the file.`, { modal: !args.file, detail: formatProblems(parsed.problems) });
      return { imported: 0, problems: parsed.problems };
    }
    if (parsed.records.length === 0) throw new UserError('The file holds no issues.');
    const repo = await pickRepo(ctx, arg);
    const client = await ctx.services.client();
    const chunks = chunk(parsed.records, args.chunkSize ?? IMPORT_CHUNK);
    const report: ImportReport = { imported: [], failed: [], notSent: [] };
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Importing ${parsed.records.length} issues`, cancellable: true },
      async (progress, cancel) => {
        let start = 0;
        for (const part of chunks) {
          const numbers = part.map((r) => r.number);
          const chunkStart = start;
          start += part.length;
          if (cancel.isCancellationRequested) {
            report.notSent.push(...numbers);
            continue;
          }
          try {
            await client.importIssues(repo, part);
            report.imported.push(...numbers);
          } catch (err) {
            // The service names a record of the chunk it got: say which record of the file that is.
            report.failed.push({ numbers, reason: chunkFailureReason((err as Error).message, (err as { bodyExcerpt?: string }).bodyExcerpt, chunkStart, numbers) });
            log().error(`import chunk #${numbers[0]}–#${numbers[numbers.length - 1]}: ${(err as Error).stack ?? err}`);
          }
          progress.report({ increment: (100 * part.length) / parsed.records.length, message: `${report.imported.length} imported` });
        }
      },
    );
    const text = formatImportReport(report);
    log().info(`import ${uri.fsPath}: ${text}`);
    if (report.failed.length || report.notSent.length) void vscode.window.showWarningMessage(text, 'Show Logs').then((c) => c && log().show(true));
    else void vscode.window.showInformationMessage(text);
    return report;
  },
};
export default command;
