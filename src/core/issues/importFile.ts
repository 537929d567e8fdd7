// Issue import (spec §2.4): validate every record first, then send in chunks.

import type { IssueRecord } from '../client/types';

export type { IssueRecord };

export interface RecordProblem {
  index: number;
  message: string;
}

export type ImportParse =
  | { ok: true; records: IssueRecord[] }
  | { ok: false; problems: RecordProblem[] };

/** Parses the file text and checks every record; problems are listed by index (0-based). */
export function validateIssueFile(text: string): ImportParse {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return { ok: false, problems: [{ index: -1, message: `not valid JSON: ${(err as Error).message}` }] };
  }
  if (!Array.isArray(data)) return { ok: false, problems: [{ index: -1, message: 'expected a JSON array of issue records' }] };
  const problems: RecordProblem[] = [];
  const numbers = new Map<number, number>();
  data.forEach((rec: unknown, index) => {
    if (typeof rec !== 'object' || rec === null || Array.isArray(rec)) {
      problems.push({ index, message: 'not an object' });
      return;
    }
    const r = rec as Record<string, unknown>;
    if (!Number.isInteger(r.number) || (r.number as number) < 1) problems.push({ index, message: '`number` must be a positive integer' });
    else if (numbers.has(r.number as number)) problems.push({ index, message: `\`number\` ${r.number} repeats record ${numbers.get(r.number as number)}` });
    else numbers.set(r.number as number, index);
    if (typeof r.title !== 'string' || r.title.trim() === '') problems.push({ index, message: '`title` must be a non-empty string' });
    if (r.body !== undefined && r.body !== null && typeof r.body !== 'string') problems.push({ index, message: '`body` must be a string' });
    if (r.labels !== undefined && !Array.isArray(r.labels)) problems.push({ index, message: '`labels` must be an array' });
    if (r.assignees !== undefined && !Array.isArray(r.assignees)) problems.push({ index, message: '`assignees` must be an array' });
    if (typeof r.state !== 'string' || r.state === '') problems.push({ index, message: '`state` must be a string' });
  });
  if (problems.length > 0) return { ok: false, problems };
  const records = (data as Record<string, unknown>[]).map((r) => ({
    number: r.number as number,
    title: r.title as string,
    body: typeof r.body === 'string' ? r.body : '',
    labels: Array.isArray(r.labels) ? r.labels : [],
    assignees: Array.isArray(r.assignees) ? r.assignees : [],
    state: r.state as IssueRecord['state'],
  }));
  return { ok: true, records };
}

export function formatProblems(problems: readonly RecordProblem[], max = 20): string {
  const lines = problems.slice(0, max).map((p) => (p.index < 0 ? p.message : `record ${p.index}: ${p.message}`));
  if (problems.length > max) lines.push(`… and ${problems.length - max} more`);
  return lines.join('\n');
}

export function chunk<T>(items: readonly T[], size: number): T[][] {
  if (size < 1) throw new RangeError('chunk size must be at least 1');
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export interface ImportReport {
  imported: number[];
  failed: { numbers: number[]; reason: string }[];
  notSent: number[];
}

export function formatImportReport(r: ImportReport): string {
  const failedCount = r.failed.reduce((n, f) => n + f.numbers.length, 0);
  const parts = [`Imported ${r.imported.length} issue(s)`];
  if (failedCount) parts.push(`${failedCount} failed (${r.failed.map((f) => `#${f.numbers[0]}–#${f.numbers[f.numbers.length - 1]}: ${f.reason}`).join('; ')})`);
  if (r.notSent.length) parts.push(`${r.notSent.length} not sent (cancelled)`);
  return parts.join(', ') + '.';
}
