// Sending an import chunk by chunk: stop at the first chunk the service cannot be reached for (the
// later ones would fail the same way), and say where a retry resumes; count what the service says
// it replaced (the emulator answers `replaced`: records whose number had been imported before).
import type { IssueRecord } from '../client/types';
import { chunk, chunkFailureReason, type ImportReport } from './importFile';

export interface ImportRunOptions {
  chunkSize: number;
  /** 0-based record of the file to start at (a retry resumes where the last run stopped). */
  from?: number;
  send(part: IssueRecord[]): Promise<unknown>;
  /** Why the service cannot be reached (a network failure or time-out), undefined for any other error. */
  unreachable(err: unknown): string | undefined;
  cancelled(): boolean;
  /** After each chunk sent (or failed): what was sent so far. */
  onChunk?(report: ImportReport): void | Promise<void>;
}

/** The `replaced` count of an import answer, undefined when the service does not say. */
export function replacedCount(answer: unknown): number | undefined {
  const n = (answer as { replaced?: unknown } | null | undefined)?.replaced;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : undefined;
}

export async function runImport(records: readonly IssueRecord[], o: ImportRunOptions): Promise<ImportReport> {
  const from = Math.max(0, Math.min(o.from ?? 0, records.length));
  const report: ImportReport = { imported: [], failed: [], notSent: [], skipped: from };
  let start = from;
  for (const part of chunk(records.slice(from), o.chunkSize)) {
    const numbers = part.map((r) => r.number);
    const chunkStart = start;
    start += part.length;
    if (report.stopped || o.cancelled()) {
      report.notSent.push(...numbers);
      continue;
    }
    try {
      const replaced = replacedCount(await o.send(part));
      report.imported.push(...numbers);
      if (replaced !== undefined) report.replaced = (report.replaced ?? 0) + replaced;
    } catch (err) {
      const why = o.unreachable(err);
      if (why !== undefined) {
        report.stopped = { at: chunkStart, number: numbers[0]!, reason: why };
        report.notSent.push(...numbers);
      } else {
        // The service names a record of the chunk it got: say which record of the file that is.
        const e = err as { message?: string; bodyExcerpt?: string };
        report.failed.push({ numbers, reason: chunkFailureReason(String(e?.message ?? err), e?.bodyExcerpt, chunkStart, numbers) });
      }
    }
    await o.onChunk?.(report);
  }
  return report;
}
