// The CLI's surfaces as readers (./readers.ts): `service-hooks deliveries`, `replay` and `forward`
// as child processes of the bundled CLI, each with one token. Slower than the others (a process
// each), so the driver runs them once, at the end of a sequence.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { cli, runCliBare, startTarget, tempDir, within } from '../relay/support/helpers';
import type { Model, Token } from './model';
import { ids, type Reader } from './readers';

/** 401/404 as the CLI prints a refused API call (or the word when it says nothing of either). */
const refusal = (stderr: string) => /\b(401|403|404)\b/.exec(stderr)?.[1];

export const cliDeliveries: Reader = {
  surface: 'CLI: service-hooks deliveries --json',
  cli: true,
  async read(w, t) {
    const r = await runCliBare(['deliveries', '--json', '--limit', '10000', '--relay', w.relay.url, '--token', w.secretOf(t)]);
    w.seen.push(r.stdout, r.stderr);
    if (r.code !== 0) return `exit ${r.code} ${refusal(r.stderr) ?? r.stderr.trim()}`;
    return ids(
      w.model,
      (JSON.parse(r.stdout) as { deliveries: { seq: number }[] }).deliveries.map((d) => d.seq),
    );
  },
  expect: (m, t) => {
    const v = m.visible(t);
    return v === undefined
      ? 'exit 1 401'
      : ids(
          m,
          v.map((d) => d.seq),
        );
  },
};

/** The newest delivery `t` may see and the newest it may not: the two `replay` tries. */
function samples(m: Model, t: Token): Model['deliveries'] {
  const v = m.visible(t) ?? [];
  const newest = (ds: Model['deliveries']) => ds.slice(-1);
  return t.live ? [...newest(v), ...newest(m.deliveries.filter((d) => !v.includes(d)))].sort((a, b) => a.seq - b.seq) : newest(m.deliveries);
}

export const cliReplay: Reader = {
  surface: 'CLI: service-hooks replay <seq>',
  cli: true,
  async read(w, t) {
    const out: string[] = [];
    for (const d of samples(w.model, t)) {
      const r = await runCliBare(['replay', String(d.seq), '--relay', w.relay.url, '--token', w.secretOf(t)]);
      w.seen.push(r.stdout, r.stderr);
      out.push(`${d.id}:${refusal(r.stderr) ?? 'found'}`);
    }
    return out.join(' ') || '(none)';
  },
  // Found: replayed, or told that the relay forwards it nowhere itself (exit 1 either way here).
  expect: (m, t) => {
    const v = m.visible(t);
    return (
      samples(m, t)
        .map((d) => `${d.id}:${v === undefined ? '401' : v.includes(d) ? 'found' : '404'}`)
        .join(' ') || '(none)'
    );
  },
};

/**
 * `service-hooks forward --since 0` to an app of its own: every delivery the token sees gets a line
 * (`[TIME RELAY ]#SEQ … → 200`, or `skipped` for a rejected one); a deleted channel's token ends with exit 1 and 401.
 * Read until the line of the newest delivery it must see (after it, the WebSocket reader's
 * caught-up check covers what a leak past the end would be).
 */
export const cliForward: Reader = {
  surface: 'CLI: service-hooks forward --since 0',
  cli: true,
  async read(w, t) {
    const app = await startTarget();
    const child = spawn(
      process.execPath,
      [await cli(), 'forward', '--relay', w.relay.url, '--token', w.secretOf(t), '--to', app.url, '--since', '0', '--state', join(tempDir(), 'state.json')],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH } },
    );
    let stdout = '';
    let stderr = '';
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const want = w.model.visible(t)?.map((d) => d.seq) ?? [];
    const last = want.length ? Math.max(...want) : undefined;
    const lines = () =>
      // (a line may start with the time and the relay's address)
      [...stdout.matchAll(/^(?:\S+ \S+ )?#(\d+) .*?(skipped|→ \d+)/gm)].map((m) => [Number(m[1]), m[2]!.startsWith('skipped') ? 'skipped' : 'app'] as const);
    const enough = new Promise<void>((resolve) => {
      const check = () => {
        if (last === undefined ? /connected/.test(stderr) : lines().some(([s]) => s === last)) resolve();
      };
      child.stdout.on('data', (c: Buffer) => ((stdout += c.toString()), check()));
      child.stderr.on('data', (c: Buffer) => ((stderr += c.toString()), check()));
    });
    try {
      const code = await within(Promise.race([exited, enough.then(() => undefined)]), 15_000, () => 'timeout').catch(() => 'timeout' as const);
      if (code === 'timeout') return `no line for ${last === undefined ? 'the connection' : w.model.idOfSeq(last)} within 15 s: ${stdout}${stderr}`;
      if (code !== undefined) return `exit ${code} ${refusal(stderr) ?? stderr.trim()}`;
      return (
        lines()
          .map(([s, where]) => `${w.model.idOfSeq(s)}${where === 'app' ? '→app' : ' skipped'}`)
          .join(' ') || '(none)'
      );
    } finally {
      child.kill('SIGTERM');
      await exited;
      w.seen.push(stdout, stderr);
      await app.close();
    }
  },
  expect: (m, t) => {
    const v = m.visible(t);
    if (v === undefined) return 'exit 1 401';
    return v.map((d) => `${d.id}${d.verification === 'rejected' ? ' skipped' : '→app'}`).join(' ') || '(none)';
  },
};

export const CLI_READERS: readonly Reader[] = [cliDeliveries, cliReplay, cliForward];
