// Port Workflows… and the pinned-SHA quick fix, in the editor: a workflow and a composite action in
// the workspace, the report in its view with links to each line, and the suggestion
// "Use service/script@v8.0.0 (from the comment)" offered as a quick fix that Fix all in this file skips.
import { strict as assert } from 'node:assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { activated, run } from './editor';
import { COMMANDS } from '../../../src/extension/ids';
import { until } from './fixtures';

const PINNED =
  'on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - uses: actions/github-script@60a0d83039c74a4aee543508d2ffcb1c3799cdea # v8.0.0\n      - run: echo ${{ github.event.ref }}\n';
const ACTION = 'name: a\ndescription: d\nruns:\n  using: composite\n  steps:\n    - uses: actions/github-script@v7\n';

interface Report {
  report: string;
  markdown: string;
  html: string;
  files: number;
  renames: number;
  decisions: number;
  portable: number;
}

describe('Port Workflows… and the pinned-SHA suggestion', function () {
  let workflow: vscode.Uri;
  let action: vscode.Uri;

  before(async function () {
    await activated();
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'the suite needs a workspace folder');
    const wf = join(folder.uri.fsPath, '.github', 'workflows');
    const act = join(folder.uri.fsPath, `port-action-${process.pid}`);
    mkdirSync(wf, { recursive: true });
    mkdirSync(act, { recursive: true });
    writeFileSync(join(wf, `port-${process.pid}.yml`), PINNED);
    writeFileSync(join(act, 'action.yml'), ACTION);
    workflow = vscode.Uri.file(join(wf, `port-${process.pid}.yml`));
    action = vscode.Uri.file(join(act, 'action.yml'));
  });

  after(async function () {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    for (const uri of [workflow, action, vscode.Uri.joinPath(action, '..')])
      await vscode.workspace.fs.delete(uri, { recursive: true }).then(undefined, () => undefined);
  });

  it('shows the port report in its view, linking each finding to its line', async function () {
    const r = await run<Report>(COMMANDS.portWorkflows);
    assert.ok(r, 'the command returns its report');
    assert.ok(r.files >= 2 && r.renames >= 2 && r.decisions >= 1, JSON.stringify({ ...r, markdown: undefined }));
    assert.ok(r.markdown.startsWith('# Workflow port report\n'));
    assert.ok(r.markdown.includes(`(${workflow.with({ fragment: 'L6' }).toString()})`), 'the pinned action links to its line');
    assert.ok(r.markdown.includes(`(${action.with({ fragment: 'L6' }).toString()})`), 'the composite action is in the report');
    assert.ok(r.markdown.includes('Suggested: Use service/script@v8.0.0 (from the comment)'));
    const saved = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.parse(r.report)));
    assert.equal(saved, r.markdown);
    // The report view: every link of the Markdown is an anchor that the view opens (the UI flow clicks one).
    assert.ok(
      r.html.includes(`data-target="${workflow.with({ fragment: 'L6' }).toString().replace(/&/g, '&amp;')}"`),
      'the view links the pinned action to its line',
    );
    assert.ok(!/\]\(file:/.test(r.html), 'no raw Markdown link left in the view');
    const view = () =>
      vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .find((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.includes('serviceHooks.portReport'));
    assert.ok(
      await until(
        (l) => vscode.window.tabGroups.onDidChangeTabs(l),
        () => view(),
        'the report view tab',
      ),
    );
  });

  it('offers the version from the comment as a quick fix that Fix all in this file does not apply', async function () {
    const doc = await vscode.workspace.openTextDocument(workflow);
    await vscode.window.showTextDocument(doc);
    const pinned = await until(
      (l) => vscode.languages.onDidChangeDiagnostics(l),
      () => vscode.languages.getDiagnostics(workflow).find((d) => d.code === 'action-pinned-sha'),
      'the pinned-SHA warning',
    );
    assert.equal(pinned.severity, vscode.DiagnosticSeverity.Warning);
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', workflow, pinned.range);
    const use = actions.find((a) => a.title === 'Use service/script@v8.0.0 (from the comment)');
    assert.ok(use?.edit, actions.map((a) => a.title).join('; '));
    assert.ok(!use.isPreferred);
    const r = await run<{ fixed: number }>(COMMANDS.fixAllInFile, workflow, { confirm: true }); // confirm: skip the count's modal
    assert.equal(r?.fixed, 1, 'only the github.event rename');
    assert.ok(doc.getText().includes('actions/github-script@60a0d83039c74a4aee543508d2ffcb1c3799cdea # v8.0.0'));
    await vscode.workspace.applyEdit(use.edit);
    // The comment only repeated the new ref, so the quick fix drops it.
    assert.ok(/uses: service\/script@v8\.0\.0\r?\n/.test(doc.getText()), doc.getText());
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  it('offers the untrusted-input quick fix (value into env:) and titles a quoted replacement readably', async function () {
    const folder = vscode.workspace.workspaceFolders![0]!;
    const file = vscode.Uri.joinPath(folder.uri, '.github', 'workflows', `untrusted-${process.pid}.yml`);
    const text =
      'on: issues\njobs:\n  a:\n    runs-on: ubuntu-latest\n    if: github.event_name == "issues"\n    steps:\n      - run: echo ${{ github.event.issue.title }}\n';
    await vscode.workspace.fs.writeFile(file, new TextEncoder().encode(text));
    try {
      const doc = await vscode.workspace.openTextDocument(file);
      await vscode.window.showTextDocument(doc);
      const diag = (code: string) => vscode.languages.getDiagnostics(file).find((d) => d.code === code);
      const untrusted = await until(
        (l) => vscode.languages.onDidChangeDiagnostics(l),
        () => diag('untrusted-input'),
        'the untrusted-input warning',
      );
      assert.equal(untrusted.severity, vscode.DiagnosticSeverity.Warning);
      const quoted = await vscode.commands.executeCommand<vscode.CodeAction[]>(
        'vscode.executeCodeActionProvider',
        file,
        diag('expression-double-quote')!.range,
      );
      assert.ok(
        quoted.some((a) => a.title === `Replace with "'issues'"`),
        quoted.map((a) => a.title).join('; '),
      );
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', file, untrusted.range);
      const move = actions.find((a) => a.title === 'Move the value into env: ISSUE_TITLE and read "$ISSUE_TITLE"');
      assert.ok(move?.edit, actions.map((a) => a.title).join('; '));
      await vscode.workspace.applyEdit(move.edit);
      assert.ok(
        doc.getText().endsWith('      - run: echo "$ISSUE_TITLE"\n        env:\n          ISSUE_TITLE: ${{ github.event.issue.title }}\n'),
        doc.getText(),
      );
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    } finally {
      await vscode.workspace.fs.delete(file).then(undefined, () => undefined);
    }
  });
});
