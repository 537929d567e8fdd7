// A child process's output as it grows, and a wait until it says something (a ready line, an
// error, a summary): one home for the tests and benches that await a process's line (issue 37 item 3).
import type { ChildProcess } from 'node:child_process';

export interface ChildOutput {
  /** stdout and stderr as they came, interleaved. */
  out(): string;
  stdout(): string;
  stderr(): string;
  /**
   * Resolves once the output matches `re`: both streams interleaved, or the one named by `in`, from
   * its character `from` on (0, or its length now to wait for something printed from now on).
   * Rejects, quoting the output, when the child's streams close first.
   */
  saw(re: RegExp, o?: { in?: 'stdout' | 'stderr'; from?: number }): Promise<void>;
}

/** Follows `child`'s piped stdout and stderr (either may be absent); `name` names it in errors. */
export function childOutput(child: ChildProcess, name = 'the process'): ChildOutput {
  let out = '';
  let stdout = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of [...waiters]) w();
  };
  child.stdout?.on('data', (c: Buffer) => ((out += c.toString()), (stdout += c.toString()), wake()));
  child.stderr?.on('data', (c: Buffer) => ((out += c.toString()), (stderr += c.toString()), wake()));
  const closed = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  const text = (o: { in?: 'stdout' | 'stderr' }) => (o.in === 'stdout' ? stdout : o.in === 'stderr' ? stderr : out);
  const saw = (re: RegExp, o: { in?: 'stdout' | 'stderr'; from?: number } = {}) =>
    new Promise<void>((resolve, reject) => {
      const holds = () => re.test(text(o).slice(o.from ?? 0));
      const check = () => holds() && (waiters.delete(check), resolve());
      waiters.add(check);
      check();
      void closed.then((code) => (holds() ? resolve() : reject(new Error(`${name} exited (${code}) before ${re}:\n${out.slice(-3000)}`))));
    });
  return { out: () => out, stdout: () => stdout, stderr: () => stderr, saw };
}
