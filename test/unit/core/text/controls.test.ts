// Pins issue 36 item 3's one escaping function (src/core/text/controls.ts): every control
// character a delivery's text may carry (C0, DEL, C1 such as U+009B CSI, line separators, bidi
// overrides) is shown as a visible escape, and everything else is left as it is.
import { strict as assert } from 'node:assert';
import { escapeControls, hasControls } from '../../../../src/core/text/controls';

describe('escapeControls', () => {
  const table: [string, string, string][] = [
    ['plain text', 'push', 'push'],
    ['ESC of a colour sequence', 'push\u001b[31mred', 'push\\x1b[31mred'],
    ['C1 CSI (U+009B) on its own', 'a\u009b2Jb', 'a\\x9b2Jb'],
    ['NUL, BEL, backspace', '\u0000\u0007\u0008', '\\x00\\x07\\x08'],
    ['newline, carriage return, tab', 'a\nb\rc\td', 'a\\nb\\rc\\td'],
    ['DEL and the last C1 (U+009F)', '\u007f\u009f', '\\x7f\\x9f'],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
    ['bidi override and isolate', 'x\u202eevil\u2066y\u2069', 'x\\u202eevil\\u2066y\\u2069'],
    ['printable Latin-1 and beyond', 'café ü ¡ → 日本 😀', 'café ü ¡ → 日本 😀'],
    ['U+00A0 (no-break space) is not a control', 'a\u00a0b', 'a\u00a0b'],
    ['a backslash is left alone', 'a\\x1b', 'a\\x1b'],
  ];
  for (const [what, given, shown] of table) {
    it(what, () => {
      assert.equal(escapeControls(given), shown);
      assert.equal(hasControls(given), given !== shown);
      assert.equal(hasControls(escapeControls(given)), false, 'nothing left to escape');
    });
  }
});
