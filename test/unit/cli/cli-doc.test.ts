// docs/cli.md names every subcommand and every flag its `--help` lists, in that subcommand's
// section: a flag added to a command without a line in the reference fails here.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { COMMANDS } from '../../../relay/commandTable';
import { cli } from '../relay/support/helpers';

const DOC = readFileSync(resolve(__dirname, '../../../docs/cli.md'), 'utf8');

/** The `## ` section whose heading names the command in a code span (`service-hooks x` or `x`). */
function section(name: string): string | undefined {
  const sections = DOC.split(/^(?=## )/m);
  return sections.find((s) => {
    const heading = s.split('\n', 1)[0]!;
    return heading.startsWith('## ') && (heading.includes(`\`service-hooks ${name}\``) || heading.includes(`\`${name}\``));
  });
}

/** The flags a help text declares: the option lines, `  --flag …` (not flags named in prose). */
function declaredFlags(help: string): string[] {
  return [...help.matchAll(/^\s{2,}(--[a-z][a-z0-9-]*)/gm)].map((m) => m[1]!).filter((f) => f !== '--help');
}

describe('docs/cli.md: every subcommand and flag', function () {
  this.timeout(30_000);

  for (const entry of COMMANDS) {
    it(`documents \`${entry.name}\` and each of its flags`, async () => {
      const text = section(entry.name);
      assert.ok(text, `docs/cli.md has no section for \`${entry.name}\``);
      // the bundled CLI, as a user runs it (help goes to stdout, exit 0)
      const help = execFileSync(process.execPath, [await cli(), entry.name, '--help'], { encoding: 'utf8', env: { PATH: process.env.PATH } });
      const flags = declaredFlags(help);
      assert.ok(flags.length > 0, `no flags found in the help of ${entry.name}`);
      assert.deepEqual(
        flags.filter((f) => !new RegExp(`${f}(?![a-z0-9-])`).test(text)),
        [],
        `flags of ${entry.name} missing from its section`,
      );
    });
  }
});
