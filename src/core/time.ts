// Time formats shared by the service's records, the emulator and the samples.

/** ISO 8601 to the second, as the service writes times: `2026-11-22T20:58:10Z`. */
export function isoSecond(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
