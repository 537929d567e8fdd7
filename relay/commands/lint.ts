// `service-hooks lint [PATHS|GLOBS…]`: the workflow port linter over files, with --fix and text/json/sarif output.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parse } from '../cli/args';
import { EXIT, UsageError, type Command } from '../cli/io';
import { CONFIG_FILE, loadConfig } from '../lint/config';
import { expandPaths } from '../lint/files';
import { formatJson, formatText, type FileFinding } from '../lint/format';
import { formatSarif } from '../lint/sarif';
import { writeAtomic } from '../lint/write';
import { applyFixes, lintText, ruleTable, type Finding } from '../../src/core/lint';

const VERSION = '0.1.0';
const DEFAULT_DIR = '.github/workflows';

const help = `Usage: service-hooks lint [PATHS|GLOBS…] [--fix] [--format text|json|sarif] [--config FILE]

Finds the external host's names in workflow files and rewrites them to the service's names
(spec §2.6): GITHUB_TOKEN → SERVICE_TOKEN, github.event → service.event,
github.repository → service.repository, actions/github-script → service/script,
github/codeql-action/* → service/codeql-action/*, plus the mappings in ${CONFIG_FILE} (lint.rules).

Paths may be files, folders (searched for *.yml and *.yaml) or globs (*, **, ?, [..], {a,b}).
Default: ${DEFAULT_DIR} and the folders in ${CONFIG_FILE} lint.workflowDirs.

A rename that can be applied exactly is an error with a fix; a caution without a fix (an action
pinned to a commit of the external repository, dynamic or whole-context access, a name an action
may read) is a warning.

Options:
  --fix                 apply the fixes in place (atomic write, file mode kept); report what remains
  --format FORMAT       text (default; file:line:col: severity message [rule]), json or sarif
  --config FILE         read lint.rules and lint.workflowDirs from FILE instead of ./${CONFIG_FILE}

${CONFIG_FILE}:
  { "lint": { "workflowDirs": [".service/workflows"],
              "rules": [{ "kind": "action" | "context" | "secret" | "env", "from": "…", "to": "…", "id"?: "…" }] } }
  action: owner/repo[/path] in uses:   context: a property path such as github.sha
  secret: secrets.NAME in expressions  env: env keys, $NAME in run scripts and env.NAME, renamed together

Exit codes: 0 no errors remain (warnings allowed), 1 errors remain,
2 usage error or a file that cannot be read or parsed (the other files are still linted).
`;

const command: Command = {
  help,
  async run(argv, io) {
    const { values, positionals } = parse(argv, {
      fix: { type: 'boolean', default: false },
      format: { type: 'string', default: 'text' },
      config: { type: 'string' },
    });
    const format = values.format!;
    if (!['text', 'json', 'sarif'].includes(format)) throw new UsageError(`--format must be text, json or sarif, got '${format}'`);
    const config = await loadConfig(io.cwd, values.config);
    const options = { rules: config.rules };
    const defaults = positionals.length === 0;
    const args = defaults ? [DEFAULT_DIR, ...config.workflowDirs] : positionals;
    const { files, missing } = await expandPaths(args, io.cwd);
    let status: number = EXIT.ok;
    for (const m of missing) {
      if (defaults) continue; // a default folder that does not exist is not an error
      io.stderr.write(`service-hooks lint: ${m}: no such file, folder or matching workflow\n`);
      status = EXIT.usage;
    }
    if (defaults && files.length === 0) io.stderr.write(`service-hooks lint: no workflow files in ${args.join(', ')}\n`);

    const all: FileFinding[] = [];
    let fixedCount = 0;
    let fixedFiles = 0;
    for (const file of files) {
      if (io.stopSignal.aborted) return EXIT.failure;
      const path = resolve(io.cwd, file);
      let bytes: Buffer;
      try {
        bytes = await readFile(path);
      } catch (err) {
        io.stderr.write(`service-hooks lint: ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`);
        status = EXIT.usage;
        continue;
      }
      const text = bytes.toString('utf8');
      let findings: Finding[] = lintText(text, options);
      if (findings.some((f) => f.rule === 'yaml-syntax')) status = EXIT.usage;
      if (values.fix && findings.some((f) => f.replacement !== undefined)) {
        if (!Buffer.from(text, 'utf8').equals(bytes)) {
          io.stderr.write(`service-hooks lint: ${file}: not valid UTF-8, not fixed\n`);
        } else {
          const fixed = applyFixes(text, findings);
          if (fixed !== text) {
            await writeAtomic(path, fixed);
            const remaining = lintText(fixed, options);
            fixedCount += findings.filter((f) => f.replacement !== undefined).length;
            fixedFiles++;
            findings = remaining;
          }
        }
      }
      for (const f of findings) all.push({ ...f, file });
    }

    if (format === 'json') io.stdout.write(formatJson(all));
    else if (format === 'sarif') io.stdout.write(formatSarif(all, ruleTable(config.rules).slice(ruleTable().length), VERSION, io.cwd));
    else io.stdout.write(formatText(all, Boolean(io.stdout.isTTY) && !io.env.NO_COLOR));

    const errors = all.filter((f) => f.severity === 'error').length;
    const warnings = all.length - errors;
    if (format === 'text' && (all.length > 0 || values.fix)) {
      const fixedNote = values.fix ? `; fixed ${fixedCount} in ${fixedFiles} file(s)` : '';
      io.stderr.write(`${errors} error(s), ${warnings} warning(s) in ${files.length} file(s)${fixedNote}\n`);
    }
    if (status === EXIT.usage) return EXIT.usage;
    return errors > 0 ? EXIT.failure : EXIT.ok;
  },
};
export default command;
