// The Debian programs the tests run for real (nats-server, nginx, haproxy): installed with apt-get
// (as root) when missing, as the code-server harness does for its packages.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Makes sure `program` exists, installing Debian's package `pkg` when it does not; throws with apt-get's reason otherwise. */
export function ensureDebianPackage(program: string, pkg: string): void {
  if (existsSync(program)) return;
  const run = (args: string[]) =>
    spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  run(['update', '-qq']);
  const r = run(['install', '-y', '-qq', '--no-install-recommends', pkg]);
  if (!existsSync(program)) throw new Error(`${pkg} is not installed and apt-get could not install it: ${r.stderr?.toString().trim() || r.error?.message}`);
}
