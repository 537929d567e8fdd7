// Reading a Prometheus text scrape in tests: GET /metrics, and one sample's value.
import { request } from 'undici';

export async function scrape(url: string, token?: string): Promise<{ status: number; text: string; type: string }> {
  const res = await request(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.statusCode, text: await res.body.text(), type: String(res.headers['content-type']) };
}

/** The value of one sample (`name{labels}`), 0 when the series is absent. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = (m[2] ?? '').split(/,(?=\w+=")/).filter(Boolean);
    if (want.every((w) => have.includes(w)) && have.length === want.length) return Number(m[3]);
  }
  return 0;
}

/**
 * Scrapes until `holds` is true of the text. Past `withinMs` (under mocha's timeout) it throws
 * with `what`, the last scrape and `context()` (a relay's log), so a run that hangs says where.
 */
export async function scrapeUntil(
  url: string,
  token: string | undefined,
  holds: (text: string) => boolean,
  what: string,
  context: () => string = () => '',
  withinMs = 40_000,
): Promise<{ status: number; text: string; type: string }> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const r = await scrape(url, token);
    if (holds(r.text)) return r;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms.\nLast scrape:\n${r.text}\n${context()}`);
  }
}
