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
