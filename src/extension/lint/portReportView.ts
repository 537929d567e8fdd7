// The port report in a webview (Port Workflows…): the report's Markdown rendered by
// src/core/lint/reportHtml.ts, each file and finding an anchor that opens the file at its line.
// A Markdown preview showed `[file](file:///…#L16)` as raw text (Markdown renderers refuse file:
// links) and cut the wide tables off; here tables scroll sideways and links post {target} to the
// extension, which opens only targets that the report itself links to.
import * as vscode from 'vscode';
import { WEBVIEWS } from '../ids';

export const REPORT_VIEW_TYPE = WEBVIEWS.portReport;

let panel: vscode.WebviewPanel | undefined;
let listener: vscode.Disposable | undefined;

const unescape = (s: string) => s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!);

const CSS = `
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 16px 16px; overflow-wrap: anywhere; }
a { color: var(--vscode-textLink-foreground); cursor: pointer; text-decoration: none; }
a:hover, a:focus { text-decoration: underline; color: var(--vscode-textLink-activeForeground); }
code { font-family: var(--vscode-editor-font-family); background: var(--vscode-textCodeBlock-background); padding: 0 3px; border-radius: 3px; }
.table { max-width: 100%; overflow-x: auto; margin: 8px 0; }
table { border-collapse: collapse; }
th, td { border: 1px solid var(--vscode-panel-border, #8884); padding: 3px 8px; vertical-align: top; }
td:first-child { white-space: nowrap; }
li { margin: 3px 0; }
`;

function nonce(): string {
  let s = '';
  for (let i = 0; i < 32; i++) s += 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'.charAt(Math.floor(Math.random() * 62));
  return s;
}

function page(body: string): string {
  const n = nonce();
  const csp = `default-src 'none'; style-src 'nonce-${n}'; script-src 'nonce-${n}';`;
  const script = `const vscode = acquireVsCodeApi();
document.addEventListener('click', (e) => {
  const a = e.target instanceof Element ? e.target.closest('a[data-target]') : null;
  if (!a) return;
  e.preventDefault();
  vscode.postMessage({ open: a.getAttribute('data-target') });
});`;
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${csp}"><style nonce="${n}">${CSS}</style></head><body>${body}<script nonce="${n}">${script}</script></body></html>`;
}

/** Opens `target` (a file URI with #L<line>) with that line selected and shown. */
export async function openAtLine(target: string): Promise<void> {
  const uri = vscode.Uri.parse(target);
  const line = Math.max(1, Number(/^L(\d+)$/.exec(uri.fragment)?.[1] ?? 1)) - 1;
  const at = new vscode.Range(line, 0, line, 0);
  await vscode.window.showTextDocument(uri.with({ fragment: '' }), { selection: at, preview: false, viewColumn: vscode.ViewColumn.One });
}

/** Shows (or refreshes) the report view; returns the panel. */
export function showReport(html: string): vscode.WebviewPanel {
  const targets = new Set([...html.matchAll(/ data-target="([^"]*)"/g)].map((m) => unescape(m[1]!)));
  if (!panel) {
    panel = vscode.window.createWebviewPanel(
      REPORT_VIEW_TYPE,
      'Workflow Port Report',
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
      { enableScripts: true, retainContextWhenHidden: true },
    );
    panel.onDidDispose(() => {
      listener?.dispose();
      [panel, listener] = [undefined, undefined];
    });
  }
  listener?.dispose();
  listener = panel.webview.onDidReceiveMessage((msg: { open?: unknown }) => {
    if (typeof msg?.open === 'string' && targets.has(msg.open)) void openAtLine(msg.open);
  });
  panel.webview.html = page(html);
  panel.reveal(undefined, false);
  return panel;
}
