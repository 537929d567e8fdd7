// Temporary folders for the unit tests, removed afterwards (loaded by .mocharc.json as a root-hook
// plugin, so every test file gets this without asking). A folder made during a test (its body or a
// beforeEach) is removed after that test; one made in a before() hook or while the files load is
// shared by several tests, so it is removed when the run ends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const afterThisTest: string[] = [];
const afterTheRun: string[] = [];
let inTest = false;

/**
 * A new empty folder under the system's temporary folder, removed after the test (see above);
 * `keep: 'run'` keeps it until the run ends (a cache shared by the whole run, such as a bundle).
 */
export function makeTempDir(prefix: string, keep: 'test' | 'run' = inTest ? 'test' : 'run'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  (keep === 'test' ? afterThisTest : afterTheRun).push(dir);
  return dir;
}

function remove(dirs: string[]): void {
  // force: a test may have removed its folder itself; retries: a child it stopped may still be closing files.
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
}

export const mochaHooks = {
  beforeEach(): void {
    inTest = true;
  },
  afterEach(): void {
    inTest = false;
    remove(afterThisTest.splice(0));
  },
  afterAll(): void {
    remove(afterTheRun.splice(0));
  },
};
