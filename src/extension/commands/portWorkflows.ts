// Port Workflows…: the port report (src/core/lint/report.ts) for every workflow file and action in
// the workspace, written as Markdown to the extension's storage (to keep or share) and shown in the
// report view (../portReportView.ts), where each file and finding opens the file at its line.
// Authors decide from it whether to run Fix All Workflow Names in Workspace.
import * as vscode from 'vscode';
import type { ReportFile } from '../../core/lint';
import { loadLinter } from '../deps';
import { COMMANDS } from '../ids';
import { lintRulesFor } from '../lint/lintRules';
import { showReport } from '../lint/portReportView';
import { workflowUris } from '../lint/workflowFiles';
import type { CommandModule } from './context';

const REPORT_FILE = 'port-report.md';

const command: CommandModule = {
  id: COMMANDS.portWorkflows,
  async run(ctx) {
    const lint = await loadLinter();
    const uris = await workflowUris();
    const byName = new Map<string, vscode.Uri>();
    const files: ReportFile[] = [];
    for (const uri of uris) {
      const file = vscode.workspace.asRelativePath(uri);
      byName.set(file, uri);
      const doc = await vscode.workspace.openTextDocument(uri).then(undefined, (err: unknown) => String((err as Error)?.message ?? err));
      if (typeof doc === 'string')
        files.push({ file, findings: [], unreadable: doc }); // listed as such, never as portable
      else files.push({ file, findings: lint.lintText(doc.getText(), { rules: await lintRulesFor(uri) }) });
    }
    const markdown = lint.portReport(files, {
      rules: lint.ruleTable(uris[0] ? await lintRulesFor(uris[0]) : []),
      link: (file, line) =>
        byName
          .get(file)!
          .with({ fragment: `L${line}` })
          .toString(),
      fixWith: '**Fix All Workflow Names in Workspace**',
      suggestWith: 'its quick fix in the editor',
    });
    const folder = ctx.extension.storageUri ?? ctx.extension.globalStorageUri;
    await vscode.workspace.fs.createDirectory(folder);
    const report = vscode.Uri.joinPath(folder, REPORT_FILE);
    await vscode.workspace.fs.writeFile(report, new TextEncoder().encode(markdown));
    const html = lint.reportHtml(markdown);
    showReport(html);
    return { report: report.toString(), markdown, html, ...lint.summarize(files) };
  },
};
export default command;
