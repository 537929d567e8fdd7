// The steps fast-check draws (./model.ts Step) and the check that runs them: on a failure it
// prints the shortest sequence fast-check shrank to, with the driver's story of it (./driver.ts).
import fc from 'fast-check';
import { NAMES, KNOWN_SEAMS, type Step } from './model';
import { runSequence, SeamFailure, type RunOptions } from './driver';

const name = fc.constantFrom(...NAMES);

export const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: name.map((n): Step => ({ kind: 'create', name: n })) },
  { weight: 2, arbitrary: name.map((n): Step => ({ kind: 'delete', name: n })) },
  { weight: 1, arbitrary: name.map((n): Step => ({ kind: 'rotate', name: n })) },
  // 'default' is the relay's own channel (--secret); --config names the others.
  {
    weight: 1,
    arbitrary: fc.record({ name: fc.constantFrom('alice' as const, 'bob' as const), on: fc.boolean() }).map((c): Step => ({ kind: 'configure', ...c })),
  },
  { weight: 1, arbitrary: fc.constant<Step>({ kind: 'restart' }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 2 }).map((keep): Step => ({ kind: 'prune', keep })) },
  { weight: 2, arbitrary: fc.constantFrom<'admin' | (typeof NAMES)[number]>('admin', ...NAMES).map((who): Step => ({ kind: 'watch', who })) },
  {
    weight: 6,
    arbitrary: fc
      .record({ name, sig: fc.constantFrom('current' as const, 'previous' as const, 'config' as const, 'wrong' as const, 'none' as const) })
      .map((d): Step => ({ kind: 'deliver', ...d })),
  },
);

/** Lengths spread evenly up to maxLength (fast-check's bias favours short arrays); shrinking still finds the shortest. */
export const sequences = (maxLength: number) => fc.noBias(fc.array(step, { minLength: 1, maxLength, size: 'max' }));

/** The exclusions the model makes today, said on every run. */
export function announceKnownSeams(): void {
  for (const s of KNOWN_SEAMS) console.log(`    seams: KNOWN SEAM, excluded from the model: ${s}`);
}

/**
 * Runs `numRuns` random sequences; on a failure, throws with the shrunk sequence's story (or the
 * error it hit). Returns how many steps and reads the runs made.
 */
export async function checkSeams(
  o: RunOptions & { numRuns: number; maxLength: number; seed?: number },
): Promise<{ steps: number; reads: number; runs: number; kinds: string }> {
  const total = { steps: 0, reads: 0, runs: 0, kinds: '' };
  const kinds = new Map<string, number>();
  const out = await fc.check(
    fc.asyncProperty(sequences(o.maxLength), async (steps) => {
      const s = await runSequence(steps, o);
      total.steps += s.steps;
      total.reads += s.reads;
      total.runs++;
      for (const x of steps) kinds.set(x.kind, (kinds.get(x.kind) ?? 0) + 1);
    }),
    { numRuns: o.numRuns, ...(o.seed === undefined ? {} : { seed: o.seed }), endOnFailure: false },
  );
  if (out.failed) {
    const err = out.errorInstance;
    const story = err instanceof SeamFailure ? err.message : `the driver failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`;
    throw new Error(
      `seams (${o.store.name}): after ${out.numRuns} sequence(s), shrunk ${out.numShrinks} time(s) to ${out.counterexample?.[0]?.length ?? '?'} step(s)` +
        ` (replay: seed ${out.seed}, path "${out.counterexamplePath}")\n${story}`,
    );
  }
  total.kinds = [...kinds].map(([k, n]) => `${n} ${k}`).join(', ');
  return total;
}
