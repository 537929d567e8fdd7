// The rules for one bulk-import issue record (spec §2.4), shared by the service emulator (which
// answers 400 with the first problem) and the editor (which lists every problem before sending):
//
//   number     a positive integer, once per import
//   title      a non-empty string
//   body       a string; null or missing is taken as ""
//   labels     an array (missing: []); its items are passed through as they are
//   assignees  an array (missing: []); the same
//   state      "open" or "closed" in any case, stored in lower case (gh CLI exports say "OPEN")
//
// Other fields (an export's url, createdAt, …) are ignored. A problem names the 1-based record,
// the issue number when the record has a usable one, and the JSON path of the bad value.
import type { IssueRecord } from '../client/types';

export interface IssueProblem {
  /** 0-based position in the array. */
  index: number;
  /** 1-based position, as people count records. */
  record: number;
  /** The record's issue number, when it has a usable one. */
  number?: number;
  /** JSON path of the bad value: `[2].state`, or `[2]` for the record itself. */
  field: string;
  /** What is wrong, without the record's position: "state must be …". */
  message: string;
}

export type IssueCheck = { ok: true; records: IssueRecord[] } | { ok: false; problems: IssueProblem[] };

type Obj = Record<string, unknown>;

/** Checks an import: every problem of every record (or only the first with `firstOnly`), or the normalised records. */
export function validateIssueRecords(data: readonly unknown[], options: { firstOnly?: boolean } = {}): IssueCheck {
  const problems: IssueProblem[] = [];
  const records: IssueRecord[] = [];
  const seen = new Map<number, number>();
  for (let index = 0; index < data.length; index++) {
    const found = checkRecord(data[index], index, seen);
    if ('problems' in found) {
      problems.push(...found.problems);
      if (options.firstOnly) break;
    } else records.push(found.record);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, records };
}

/** "record 3 (issue #12): state must be …". */
export function describeIssueProblem(p: IssueProblem): string {
  return `record ${p.record}${p.number === undefined ? '' : ` (issue #${p.number})`}: ${p.message}`;
}

function checkRecord(value: unknown, index: number, seen: Map<number, number>): { record: IssueRecord } | { problems: IssueProblem[] } {
  const at = `[${index}]`;
  const problem = (field: string, message: string, number?: number): IssueProblem => ({
    index,
    record: index + 1,
    ...(number === undefined ? {} : { number }),
    field,
    message,
  });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { problems: [problem(at, `must be an object with number, title and state, got ${kind(value)}`)] };
  }
  const r = value as Obj;
  const number = Number.isInteger(r.number) && (r.number as number) >= 1 ? (r.number as number) : undefined;
  const problems: IssueProblem[] = [];
  const add = (key: string, message: string) => problems.push(problem(`${at}.${key}`, message, number));
  if (number === undefined) add('number', `number must be a positive integer, got ${kind(r.number)}`);
  else if (seen.has(number)) add('number', `number ${number} repeats record ${seen.get(number)! + 1}`);
  else seen.set(number, index);
  if (typeof r.title !== 'string' || r.title.trim() === '') add('title', `title must be a non-empty string, got ${kind(r.title)}`);
  if (r.body !== undefined && r.body !== null && typeof r.body !== 'string') add('body', `body must be a string or null, got ${kind(r.body)}`);
  for (const k of ['labels', 'assignees'] as const) {
    if (r[k] !== undefined && !Array.isArray(r[k])) add(k, `${k} must be an array, got ${kind(r[k])}`);
  }
  const state = typeof r.state === 'string' ? r.state.toLowerCase() : undefined;
  if (state !== 'open' && state !== 'closed') add('state', `state must be "open" or "closed" (any case), got ${kind(r.state)}`);
  if (problems.length > 0) return { problems };
  return {
    record: {
      number: number!,
      title: r.title as string,
      body: typeof r.body === 'string' ? r.body : '',
      labels: Array.isArray(r.labels) ? r.labels : [],
      assignees: Array.isArray(r.assignees) ? r.assignees : [],
      state: state as IssueRecord['state'],
    },
  };
}

/** A short description of a bad value: `"merged"`, `5`, `null`, `nothing`, `an array`. */
function kind(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  const text = JSON.stringify(v);
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
}
