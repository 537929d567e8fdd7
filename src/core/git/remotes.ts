// Repository detection from `.git/config` text: the remote whose host matches the service's host.
import type { RepoRef } from '../tree/types';

export interface GitRemote {
  name: string;
  url: string;
}

/** Remotes in a git config file (`[remote "origin"]` sections, `url = …` keys). */
export function parseGitConfigRemotes(text: string): GitRemote[] {
  const remotes: GitRemote[] = [];
  let current: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/^\s+/, '');
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
    if (section) {
      current = section[1]!.toLowerCase() === 'remote' && section[2] !== undefined ? section[2].replace(/\\(.)/g, '$1') : undefined;
      continue;
    }
    if (current === undefined) continue;
    const kv = /^([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*)$/.exec(line);
    if (!kv || kv[1]!.toLowerCase() !== 'url') continue;
    let value = kv[2]!.replace(/\s+[#;].*$/, '').trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    if (value) remotes.push({ name: current, url: value });
  }
  return remotes;
}

/** Host (no port, lower case) and path of a remote URL: https://, http://, ssh://, git:// and scp-like `user@host:path`. */
export function splitRemoteUrl(url: string): { host: string; path: string } | undefined {
  const trimmed = url.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) {
    try {
      const u = new URL(trimmed);
      return { host: u.hostname.toLowerCase().replace(/^\[|\]$/g, ''), path: decodeURIComponent(u.pathname) };
    } catch {
      return undefined;
    }
  }
  const scp = /^(?:[^@/]+@)?(\[[^\]]+\]|[^:/]+):(.+)$/.exec(trimmed);
  if (scp) return { host: scp[1]!.toLowerCase().replace(/^\[|\]$/g, ''), path: scp[2]! };
  return undefined;
}

/** owner/repo from a remote URL whose host is `host`; undefined otherwise. */
export function repoFromRemoteUrl(url: string, host: string): RepoRef | undefined {
  const parts = splitRemoteUrl(url);
  if (!parts || parts.host !== normalizeHost(host)) return undefined;
  const segments = parts.path.replace(/\/+$/, '').split('/').filter(Boolean);
  if (segments.length < 2) return undefined;
  const owner = segments[segments.length - 2]!;
  const repo = segments[segments.length - 1]!.replace(/\.git$/, '');
  if (!repo) return undefined;
  return { owner, repo };
}

export function normalizeHost(host: string): string {
  return host.toLowerCase().replace(/^\[|\]$/g, '');
}

/** Host name of the base URL (what remotes are matched against). */
export function hostOfBaseUrl(baseUrl: string): string | undefined {
  try {
    return normalizeHost(new URL(baseUrl).hostname);
  } catch {
    return undefined;
  }
}

/** Repositories named by remote URLs on the base URL's host, `origin` first, without duplicates. */
export function reposFromRemoteUrls(remotes: readonly GitRemote[], baseUrl: string): RepoRef[] {
  const host = hostOfBaseUrl(baseUrl);
  if (!host) return [];
  const ordered = [...remotes].sort((a, b) => (a.name === 'origin' ? -1 : b.name === 'origin' ? 1 : 0));
  const seen = new Set<string>();
  const out: RepoRef[] = [];
  for (const r of ordered) {
    const ref = repoFromRemoteUrl(r.url, host);
    if (!ref) continue;
    const key = `${ref.owner}/${ref.repo}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(ref);
  }
  return out;
}

export function detectReposFromGitConfig(text: string, baseUrl: string): RepoRef[] {
  return reposFromRemoteUrls(parseGitConfigRemotes(text), baseUrl);
}
