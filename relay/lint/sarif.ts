// SARIF 2.1.0 for `service-hooks lint --format sarif`: one run, the rule table as tool.driver.rules,
// results with physical regions (1-based, UTF-16 columns) and a fix for each replacement.
import { BUILTIN_RULES, NOTE_RULES, describeRule, type RenameRule } from '../../src/core/lint';
import type { FileFinding } from './format';

const uri = (file: string) => encodeURI(file.replace(/\\/g, '/'));

export function formatSarif(findings: readonly FileFinding[], extra: readonly RenameRule[], version: string): string {
  const rules = [
    ...[...BUILTIN_RULES, ...extra].map((r) => ({ id: r.id, level: 'error', text: describeRule(r) })),
    ...NOTE_RULES.map((r) => ({ id: r.id, level: r.severity, text: r.description })),
  ];
  const index = new Map(rules.map((r, i) => [r.id, i]));
  const results = findings.map((f) => {
    const region = { startLine: f.line, startColumn: f.column, endLine: f.endLine, endColumn: f.endColumn, charOffset: f.offset, charLength: f.length };
    const artifactLocation = { uri: uri(f.file) };
    return {
      ruleId: f.rule,
      ...(index.has(f.rule) ? { ruleIndex: index.get(f.rule) } : {}),
      level: f.severity,
      message: { text: f.message },
      locations: [{ physicalLocation: { artifactLocation, region } }],
      ...(f.replacement !== undefined
        ? {
            fixes: [
              {
                description: { text: `Replace with '${f.replacement}'` },
                artifactChanges: [{ artifactLocation, replacements: [{ deletedRegion: region, insertedContent: { text: f.replacement } }] }],
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
            rules: rules.map((r) => ({ id: r.id, shortDescription: { text: r.text }, defaultConfiguration: { level: r.level } })),
          },
        },
        columnKind: 'utf16CodeUnits',
        results,
      },
    ],
  };
  return JSON.stringify(log, null, 2) + '\n';
}
