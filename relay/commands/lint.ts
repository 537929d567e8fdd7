// `service-hooks lint [PATHS|GLOBS…]`: the workflow port linter over files (workflows and composite
// actions), with --fix / --fix-pinned, text/json/sarif output and the Markdown port report (--report).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineCommand, type ParsedValues } from '../cli/args';
import { EXIT, UsageError, type CliIO } from '../cli/io';
import { CONFIG_FILE, loadConfig } from '../lint/config';
import { expandPaths } from '../lint/files';
import { formatJson, formatText, type FileFinding } from '../lint/format';
import { ShortRunJit } from '../lint/jit';
import { formatReport } from '../lint/report';
import { formatSarif } from '../lint/sarif';
import { writeAtomic } from '../lint/write';
import { applyFixesChecked, lintText, ruleTable, type Finding, type LintOptions, type ReportFile } from '../../src/core/lint';

const VERSION = '0.1.0';
const DEFAULT_DIR = '.github/workflows';

const ACTION_GLOB = '**/action.{yml,yaml}';

const help = `Usage: service-hooks lint [PATHS|GLOBS…] [--fix] [--fix-pinned] [--report] [--format text|json|sarif] [--config FILE]

Finds the external host's names in workflow files and composite actions and rewrites them to the
service's names (spec §2.6): GITHUB_TOKEN → SERVICE_TOKEN, github.event → service.event,
github.repository → service.repository, actions/github-script → service/script,
github/codeql-action/* → service/codeql-action/* (actions and reusable workflows), plus the
mappings in ${CONFIG_FILE} (lint.rules).

Paths may be files, folders (searched for *.yml and *.yaml) or globs (*, **, ?, [..], {a,b}).
Default: ${DEFAULT_DIR}, the folders in ${CONFIG_FILE} lint.workflowDirs, and every action.yml /
action.yaml (${ACTION_GLOB}, outside node_modules and .git). A file whose runs.using is
composite is linted as an action: its runs.steps like a workflow's steps.

A rename that can be applied exactly is an error with a fix; a caution without a fix (an action
pinned to a commit of the external repository, dynamic or whole-context access, a name an action
or a tool such as gh may read) is a warning.

Options:
  --fix                 apply the fixes in place (atomic write, file mode kept); report what remains
  --fix-pinned          also (implies --fix) replace a renamed action pinned to a commit by the
                        version its comment names: uses: actions/github-script@<sha> # v8.0.0
                        becomes service/script@v8.0.0
  --report              print a Markdown port report instead of the findings: what a fix renames
                        (per rule and file), what needs a decision (each warning, grouped by kind,
                        with its reason and line) and which files are already portable
  --format FORMAT       text (default; file:line:col: severity message [rule]), json or sarif
  --config FILE         read lint.rules and lint.workflowDirs from FILE instead of ./${CONFIG_FILE}

${CONFIG_FILE}:
  { "lint": { "workflowDirs": [".service/workflows"],
              "rules": [{ "kind": "action" | "context" | "secret" | "env", "from": "…", "to": "…", "id"?: "…" }] } }
  action: owner/repo[/path] in uses:   context: a property path such as github.sha
  secret: secrets.NAME in expressions  env: env keys, $NAME in run scripts and env.NAME, renamed together

Exit codes: 0 no errors remain (warnings allowed), 1 errors remain (also with --report),
2 usage error or a file that cannot be read or parsed (the other files are still linted).
`;

interface Flags {
  fix: boolean;
  fixPinned: boolean;
  report: boolean;
  format: string;
  config: string | undefined;
}

const OPTIONS = {
  fix: { type: 'boolean', default: false },
  'fix-pinned': { type: 'boolean', default: false },
  report: { type: 'boolean', default: false },
  format: { type: 'string' },
  config: { type: 'string' },
} as const;

function flags(values: ParsedValues<typeof OPTIONS>): Flags {
  const format = values.format ?? 'text';
  if (!['text', 'json', 'sarif'].includes(format)) throw new UsageError(`--format must be text, json or sarif, got '${format}'`);
  if (values.report && values.format !== undefined) throw new UsageError('--report prints Markdown; leave out --format');
  const fixPinned = values['fix-pinned']!;
  return { fix: values.fix! || fixPinned, fixPinned, report: values.report!, format, config: values.config };
}

interface FileResult {
  findings: Finding[];
  /** The text starts with a byte-order mark. */
  bom?: boolean;
  /** Why the file could not be read. */
  unreadable?: string;
  fixed: number;
  status: number;
}

/** Lints (and with --fix rewrites) one file; `status` is EXIT.usage when it cannot be read or parsed. */
async function lintFile(file: string, f: Flags, options: LintOptions, io: CliIO): Promise<FileResult> {
  const path = resolve(io.cwd, file);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path); // sync: a CLI reading many small files; async reads cost a thread-pool hop each
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    io.stderr.write(`service-hooks lint: ${file}: ${why}\n`);
    return { findings: [], fixed: 0, status: EXIT.usage, unreadable: why };
  }
  const r = await lintAndFix(file, path, bytes, f, options, io);
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? { ...r, bom: true } : r;
}

/** Lints the bytes read from `path` and, with --fix, rewrites the file. */
async function lintAndFix(file: string, path: string, bytes: Buffer, f: Flags, options: LintOptions, io: CliIO): Promise<FileResult> {
  const text = bytes.toString('utf8');
  const findings = lintText(text, options);
  const status = findings.some((x) => x.rule === 'yaml-syntax') ? EXIT.usage : EXIT.ok;
  const edits = findings.filter((x) => x.replacement !== undefined || (f.fixPinned && x.suggestion)).length;
  if (!f.fix || edits === 0) return { findings, fixed: 0, status };
  if (!Buffer.from(text, 'utf8').equals(bytes)) {
    io.stderr.write(`service-hooks lint: ${file}: not valid UTF-8, not fixed\n`);
    return { findings, fixed: 0, status };
  }
  const { text: fixed, refused } = applyFixesChecked(text, findings, { suggestions: f.fixPinned });
  for (const r of refused)
    io.stderr.write(`service-hooks lint: ${file}:${r.line}:${r.column}: fix refused: the file would no longer parse as YAML [${r.rule}]\n`);
  if (fixed === text) return { findings, fixed: 0, status };
  await writeAtomic(path, fixed);
  return { findings: lintText(fixed, options), fixed: edits - refused.length, status };
}

async function workflowFiles(positionals: string[], workflowDirs: string[], io: CliIO): Promise<{ files: string[]; status: number }> {
  const defaults = positionals.length === 0;
  const args = defaults ? [DEFAULT_DIR, ...workflowDirs, ACTION_GLOB] : positionals;
  const { files, missing } = await expandPaths(args, io.cwd);
  let status: number = EXIT.ok;
  for (const m of missing) {
    if (defaults) continue; // a default folder that does not exist is not an error
    io.stderr.write(`service-hooks lint: ${m}: no such file, folder or matching workflow\n`);
    status = EXIT.usage;
  }
  if (defaults && files.length === 0) io.stderr.write(`service-hooks lint: no workflow files in ${args.join(', ')}\n`);
  return { files, status };
}

export default defineCommand({
  help,
  options: OPTIONS,
  positionals: true,
  async run({ values, positionals }, io) {
    const f = flags(values);
    const config = await loadConfig(io.cwd, f.config);
    const options = { rules: config.rules };
    const { files, status: found } = await workflowFiles(positionals, config.workflowDirs, io);
    let status = found;
    const results: ReportFile[] = [];
    let fixedCount = 0;
    let fixedFiles = 0;
    const boms = new Set<string>();
    const jit = new ShortRunJit(files.length);
    for (const file of files) {
      if (io.stopSignal.aborted) return EXIT.failure;
      const r = await lintFile(file, f, options, io);
      jit.fileDone();
      if (r.status === EXIT.usage) status = EXIT.usage;
      if (r.fixed > 0) [fixedCount, fixedFiles] = [fixedCount + r.fixed, fixedFiles + 1];
      results.push({ file, findings: r.findings, ...(r.unreadable !== undefined ? { unreadable: r.unreadable } : {}) });
      if (r.bom) boms.add(file);
    }
    const all: FileFinding[] = results.flatMap((r) => r.findings.map((x) => ({ ...x, file: r.file, ...(boms.has(r.file) ? { bom: true } : {}) })));
    const table = ruleTable(config.rules);
    if (f.report) io.stdout.write(formatReport(results, table, io.cwd));
    else if (f.format === 'json') io.stdout.write(formatJson(all));
    else if (f.format === 'sarif') io.stdout.write(formatSarif(all, table.slice(ruleTable().length), VERSION, io.cwd));
    else io.stdout.write(formatText(all, Boolean(io.stdout.isTTY) && !io.env.NO_COLOR));

    const errors = all.filter((x) => x.severity === 'error').length;
    if ((f.format === 'text' || f.report) && (all.length > 0 || f.fix)) {
      const fixedNote = f.fix ? `; fixed ${fixedCount} in ${fixedFiles} file(s)` : '';
      io.stderr.write(`${errors} error(s), ${all.length - errors} warning(s) in ${files.length} file(s)${fixedNote}\n`);
    }
    if (status === EXIT.usage) return EXIT.usage;
    return errors > 0 ? EXIT.failure : EXIT.ok;
  },
});
