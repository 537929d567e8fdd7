// The page's files: one HTML shell written here (no inline script or style), and the browser
// bundle built by esbuild.mjs into dist/page/ (app.js, app.css). Served with a strict
// Content-Security-Policy: only this origin's script, style and fetches; no frames, no forms
// posting elsewhere.
import { existsSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { sendError } from '../../shared/http';

export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Relay deliveries · service-hooks</title>
<link rel="stylesheet" href="/page/app.css">
<script defer src="/page/app.js"></script>
</head>
<body>
<noscript>This page needs JavaScript.</noscript>
</body>
</html>
`;

const TYPES: Record<string, string> = { 'app.js': 'text/javascript; charset=utf-8', 'app.css': 'text/css; charset=utf-8' };

/** Where the built page is: given, or beside the bundled CLI (dist/page, dist/commands/../page). */
export function findAssets(dir: string | undefined): string | undefined {
  const candidates = dir ? [dir] : [join(__dirname, 'page'), join(__dirname, '..', 'page')];
  return candidates.find((d) => existsSync(join(d, 'app.js')));
}

export class PageAssets {
  private readonly files = new Map<string, Buffer>();

  constructor(private readonly dir: string | undefined) {}

  html(res: ServerResponse): void {
    if (!this.dir) return sendError(res, 503, 'the page is not built: run npm run build (it writes dist/page/)');
    send(res, 'text/html; charset=utf-8', Buffer.from(HTML), { 'content-security-policy': CSP, 'cache-control': 'no-store' });
  }

  file(res: ServerResponse, name: string): void {
    const type = TYPES[name];
    if (!type || !this.dir) return sendError(res, 404, 'not found');
    let body = this.files.get(name);
    if (!body) this.files.set(name, (body = readFileSync(join(this.dir, name))));
    send(res, type, body, { 'cache-control': 'no-cache' });
  }
}

function send(res: ServerResponse, type: string, body: Buffer, headers: Record<string, string>): void {
  res.writeHead(200, {
    'content-type': type,
    'content-length': body.length,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    ...headers,
  });
  res.end(body);
}
