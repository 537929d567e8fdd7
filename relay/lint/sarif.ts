// SARIF 2.1.0 for `service-hooks lint --format sarif`: one run, the rule table as tool.driver.rules,
// results with physical regions (1-based, UTF-16 columns) and a fix for each replacement.
// Files under the working directory are relative URIs against %SRCROOT% (declared in
// originalUriBaseIds); others are file:// URIs. Every path segment is percent-encoded, so `#`, `?`
// and `:` in a file name stay part of the name (not a fragment, a query or a scheme).
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { BUILTIN_RULES, NOTE_RULES, describeRule, fixTitle, type RenameRule } from '../../src/core/lint';
import type { FileFinding } from './format';

export const SRCROOT = '%SRCROOT%';
export const INFORMATION_URI = 'https://example.invalid/service-hooks/service-hooks#service-hooks-lint';

/** Path segments: split at `/`, and at `\\` only on Windows (elsewhere a backslash is part of a name). */
const segments = (path: string, windows = process.platform === 'win32') => path.split(windows ? /[\\/]/ : /\//);
const encodeSegments = (segs: readonly string[]) => segs.map((s) => encodeURIComponent(s)).join('/');

/** `file://` URI of an absolute path (a Windows drive letter stays as it is). */
export function fileUri(abs: string): string {
  const segs = segments(abs, process.platform === 'win32' || /^[A-Za-z]:\\/.test(abs)); // a Windows path, wherever it is formatted
  const drive = /^[A-Za-z]:$/.test(segs[0]!) ? segs.shift()! : '';
  if (!drive && segs[0] === '') segs.shift();
  return `file:///${drive ? drive + '/' : ''}${encodeSegments(segs)}`;
}

/** The artifactLocation of `file` (as given on the command line, relative to `cwd` or absolute). */
export function artifactLocation(file: string, cwd: string): { uri: string; uriBaseId?: string } {
  const abs = resolve(cwd, file);
  const rel = relative(cwd, abs);
  if (rel !== '' && !isAbsolute(rel) && rel !== '..' && !rel.startsWith('..' + sep) && !rel.startsWith('../')) {
    return { uri: encodeSegments(segments(rel)), uriBaseId: SRCROOT };
  }
  return { uri: fileUri(abs) };
}

export function formatSarif(findings: readonly FileFinding[], extra: readonly RenameRule[], version: string, cwd: string): string {
  const rules = [
    ...[...BUILTIN_RULES, ...extra].map((r) => ({ id: r.id, level: 'error', text: describeRule(r) })),
    ...NOTE_RULES.map((r) => ({ id: r.id, level: r.severity, text: r.description })),
  ];
  const index = new Map(rules.map((r, i) => [r.id, i]));
  const results = findings.map((f) => {
    // Offsets do not count a byte-order mark (SARIF 2.1.0 §3.30.2); lines and columns already do not.
    const charOffset = f.bom ? Math.max(0, f.offset - 1) : f.offset;
    const region = { startLine: f.line, startColumn: f.column, endLine: f.endLine, endColumn: f.endColumn, charOffset, charLength: f.length };
    const location = artifactLocation(f.file, cwd);
    return {
      ruleId: f.rule,
      ...(index.has(f.rule) ? { ruleIndex: index.get(f.rule) } : {}),
      level: f.severity,
      message: { text: f.message },
      locations: [{ physicalLocation: { artifactLocation: location, region } }],
      ...(f.quickFix !== undefined
        ? {
            fixes: [
              {
                description: { text: f.quickFix.title },
                artifactChanges: [
                  {
                    artifactLocation: location,
                    replacements: f.quickFix.edits.map((e) => ({
                      deletedRegion: { charOffset: f.bom ? Math.max(0, e.offset - 1) : e.offset, charLength: e.length },
                      insertedContent: { text: e.replacement },
                    })),
                  },
                ],
              },
            ],
          }
        : {}),
      ...(f.replacement !== undefined
        ? {
            fixes: [
              {
                description: { text: fixTitle(f.replacement) },
                artifactChanges: [{ artifactLocation: location, replacements: [{ deletedRegion: region, insertedContent: { text: f.replacement } }] }],
              },
            ],
          }
        : {}),
    };
  });
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'service-hooks lint',
            version,
            informationUri: INFORMATION_URI,
            rules: rules.map((r) => ({ id: r.id, shortDescription: { text: r.text }, defaultConfiguration: { level: r.level } })),
          },
        },
        originalUriBaseIds: { [SRCROOT]: { uri: fileUri(cwd).replace(/\/?$/, '/') } },
        columnKind: 'utf16CodeUnits',
        results,
      },
    ],
  };
  return JSON.stringify(log, null, 2) + '\n';
}
