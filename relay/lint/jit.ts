// A short `service-hooks lint` run spends more CPU compiling hot code with V8's optimizing compiler
// (on a background thread) than that code saves: on the 175-file starter corpus, CPU time drops by
// about a third and wall time with it when optimization is off. A long run needs it. So optimization
// starts off and is switched back on after the first FILES_WITHOUT_OPT files (hot functions then tier
// up as usual). Measured by `npm run bench:lint`; this process only, never the editor.
import { setFlagsFromString } from 'node:v8';

const FILES_WITHOUT_OPT = 250;

export class ShortRunJit {
  private seen = 0;
  private off = false;

  constructor(total: number) {
    if (total === 0) return;
    setFlagsFromString('--no-opt');
    this.off = true;
  }

  /** Call once per file linted. */
  fileDone(): void {
    if (!this.off || ++this.seen < FILES_WITHOUT_OPT) return;
    setFlagsFromString('--opt');
    this.off = false;
  }
}
