// GET /runner/install.sh: the fake runner's installer (runnerScript.ts). No token needed, as a
// download page would not ask for one; it holds nothing secret.
import { installScript } from '../runnerScript';
import type { Handler } from './context';

export const runnerInstaller: Handler = (ctx, req, res) => {
  req.resume();
  const text = installScript(ctx.selfUrl());
  res.writeHead(200, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
};
