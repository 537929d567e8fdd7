// Reads `.service-hooks.json` (or --config FILE) for `service-hooks lint`; the parsing itself is
// src/core/lint/config.ts (shared with the editor). Its errors become usage errors (exit 2).
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from '../cli/io';
import { CONFIG_FILE, LintConfigError, parseConfigText, type LintConfig } from '../../src/core/lint/config';

export { CONFIG_FILE, type LintConfig };

/** Loads the config; a missing default file is an empty config, a missing --config file is a usage error. */
export async function loadConfig(cwd: string, explicit?: string): Promise<LintConfig> {
  const path = resolve(cwd, explicit ?? CONFIG_FILE);
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (err) {
    if (!explicit && (err as NodeJS.ErrnoException).code === 'ENOENT') return { rules: [], workflowDirs: [] };
    throw new UsageError(`cannot read config ${explicit ?? CONFIG_FILE}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return parseConfigText(raw, explicit ?? CONFIG_FILE);
  } catch (err) {
    if (err instanceof LintConfigError) throw new UsageError(err.message);
    throw err;
  }
}
