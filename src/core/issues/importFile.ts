// Issue import (spec §2.4): validate every record first, then send in chunks.

import type { IssueRecord } from '../client/types';
import { describeIssueProblem, validateIssueRecords, type IssueProblem } from './validate';

export type { IssueRecord };

/** A problem of the file itself (`index` -1: not JSON, not an array) or of one record (validate.ts). */
export type RecordProblem = IssueProblem | { index: -1; message: string };

export type ImportParse = { ok: true; records: IssueRecord[] } | { ok: false; problems: RecordProblem[] };

/**
 * Parses the file text and checks every record by the rules the service applies
 * (src/core/issues/validate.ts): every problem, each naming the 1-based record and the issue number.
 */
export function validateIssueFile(text: string): ImportParse {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return { ok: false, problems: [{ index: -1, message: `not valid JSON: ${(err as Error).message}` }] };
  }
  if (!Array.isArray(data)) return { ok: false, problems: [{ index: -1, message: 'expected a JSON array of issue records' }] };
  const checked = validateIssueRecords(data);
  return checked.ok ? checked : { ok: false, problems: checked.problems };
}

export function formatProblems(problems: readonly RecordProblem[], max = 20): string {
  const lines = problems.slice(0, max).map((p) => ('record' in p ? describeIssueProblem(p) : p.message));
  if (problems.length > max) lines.push(`… and ${problems.length - max} more`);
  return lines.join('\n');
}

/**
 * The file's 1-based record a service error is about: the service names the bad value by its JSON
 * path in the chunk it received (`field: "[2].state"`); the chunk started at file index `chunkStart`.
 */
export function fileRecordOfServerError(errorBody: string | undefined, chunkStart: number): number | undefined {
  let field: unknown;
  try {
    field = (JSON.parse(errorBody ?? '') as { field?: unknown }).field;
  } catch {
    return undefined;
  }
  const m = typeof field === 'string' ? /^\[(\d+)\]/.exec(field) : null;
  return m ? chunkStart + Number(m[1]) + 1 : undefined;
}

/** A failed chunk's reason, with the record the service named mapped back to the file's numbering. */
export function chunkFailureReason(message: string, errorBody: string | undefined, chunkStart: number, numbers: readonly number[]): string {
  const record = fileRecordOfServerError(errorBody, chunkStart);
  if (record === undefined) return message;
  const number = numbers[record - 1 - chunkStart];
  const said = (() => {
    try {
      const e = (JSON.parse(errorBody!) as { error?: unknown }).error;
      return typeof e === 'string' ? e.replace(/^record \d+(?: \(issue #\d+\))?: /, '') : message;
    } catch {
      return message;
    }
  })();
  return `record ${record}${number === undefined ? '' : ` (issue #${number})`} of the file: ${said}`;
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
  /** records of the file before the one this run started at (a resumed import) */
  skipped?: number;
  /** issues the service says existed and were replaced; absent when it does not say */
  replaced?: number;
  /** the service could not be reached: the run stopped at this 0-based record of the file */
  stopped?: { at: number; number: number; reason: string };
}

export function formatImportReport(r: ImportReport): string {
  const failedCount = r.failed.reduce((n, f) => n + f.numbers.length, 0);
  const parts = [`Imported ${r.imported.length} issue(s)${r.skipped ? ` from record ${r.skipped + 1} on` : ''}`];
  if (r.replaced) parts.push(`${r.replaced} of them already existed and were replaced`);
  if (failedCount) parts.push(`${failedCount} failed (${r.failed.map((f) => `#${f.numbers[0]}–#${f.numbers[f.numbers.length - 1]}: ${f.reason}`).join('; ')})`);
  if (r.stopped) {
    return `${parts.join(', ')}. Stopped at issue #${r.stopped.number} (record ${r.stopped.at + 1}): cannot reach the service (${r.stopped.reason}); ${r.notSent.length} not sent. Retry resumes from there.`;
  }
  if (r.notSent.length) parts.push(`${r.notSent.length} not sent (cancelled)`);
  return parts.join(', ') + '.';
}
