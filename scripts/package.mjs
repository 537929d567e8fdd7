#!/usr/bin/env node
// @ts-check
// `npm run package`: dist/service-hooks.vsix with @vscode/vsce, offline (--no-dependencies: the
// extension is bundled), README links resolved against the repository field. Same step as npm start.
import { packageVsix } from './start.mjs';

try {
  packageVsix();
} catch (err) {
  process.stderr.write(`npm run package: FAILED — ${err?.message ?? err}\n`);
  process.exit(1);
}
