// One line per forward event, as `service-hooks forward` prints them (like `stripe listen`):
//   #12 dev push → 200 3.1 ms
//   #12 dev push → 400 (not retried: service-hooks replay 12)
//   #12 dev push → 500 (retrying in 1 min, attempt 1 of 4)
//   #12 dev push → 500 (gave up after 4 attempts: service-hooks replay 12)
//   #12 dev push → 200 3.1 ms (replay)
//   #13 dev issue skipped by the filter
import { inWords } from '../../src/core/relay/forwardPolicy';
import type { ForwardEvent } from './forwardEngine';
import { escapeControls } from '../../src/core/text/controls';

/**
 * The line for an event, and whether it is about a delivery (stdout) or the forwarder (stderr);
 * its channel, event name, reason and error (a sender's or a relay's text) with control characters escaped.
 */
export function forwardLine(e: ForwardEvent, totalAttempts: number, said = 'forward:'): { line: string; stream: 'stdout' | 'stderr' } {
  const { line, stream } = eventLine(e, totalAttempts, said);
  return { line: escapeControls(line), stream };
}

/** `said`: who speaks in a line about an app (`forward:`, or `forward: channel dev:` naming the stream held). */
function eventLine(e: ForwardEvent, totalAttempts: number, said: string): { line: string; stream: 'stdout' | 'stderr' } {
  if (e.kind === 'paused') return { stream: 'stderr', line: `${said} ${e.to} is unreachable (${e.error}); holding deliveries in order until it answers` };
  if (e.kind === 'resumed') return { stream: 'stderr', line: `${said} ${e.to} answers again after ${(e.pausedMs / 1000).toFixed(1)} s; going on` };
  const head = `#${e.seq} ${e.channel}${e.kind === 'skipped' ? '' : ` ${e.event ?? '-'}`}`;
  const answer = (x: { status?: number; error?: string }) => (x.status !== undefined ? String(x.status) : `failed (${x.error ?? 'no answer'})`);
  switch (e.kind) {
    case 'delivered':
      return { stream: 'stdout', line: `${head} → ${e.status} ${e.durationMs.toFixed(1)} ms${e.attempts > 1 ? ` (attempt ${e.attempts})` : ''}` };
    case 'final':
      return { stream: 'stdout', line: `${head} → ${e.status} (not retried: service-hooks replay ${e.seq})` };
    case 'retrying':
      return { stream: 'stdout', line: `${head} → ${answer(e)} (retrying ${inWords(e.inMs)}, attempt ${e.attempts} of ${totalAttempts})` };
    case 'failed':
      return { stream: 'stdout', line: `${head} → ${answer(e)} (gave up after ${e.attempts} attempts: service-hooks replay ${e.seq})` };
    case 'replayed':
      return { stream: 'stdout', line: `${head} → ${answer(e)}${e.status !== undefined ? ` ${e.durationMs.toFixed(1)} ms` : ''} (replay)` };
    case 'skipped':
      if (e.filter) return { stream: 'stdout', line: `${head} ${e.event ?? '-'} skipped by the filter` };
      return { stream: 'stdout', line: `${head} skipped (${e.reason})` };
  }
}
