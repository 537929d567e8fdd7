// A delivery's text (its event name, channel, headers, a relay's reason) comes from whoever sent
// the webhook, or from a relay that is not trusted: printed raw, an ESC or a C1 control (U+009B is
// CSI on its own) is a terminal escape sequence, and a bidi override reorders what is shown. Every
// place that prints such text to a terminal or a clipboard escapes it here, visibly.

/** C0 controls, DEL, C1 controls, line/paragraph separators and the bidi embeddings, overrides and isolates. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const ANY_CONTROL = new RegExp(CONTROL.source);

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** One control character, shown: \n \r \t, \xHH up to U+00FF, else \uHHHH. */
function shown(c: string): string {
  const code = c.charCodeAt(0);
  return NAMED[c] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
}

/** `text` with every control character (hasControls) written as a visible escape; other text as is. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, shown);
}

/** Whether `text` holds a character escapeControls escapes. */
export function hasControls(text: string): boolean {
  return ANY_CONTROL.test(text);
}
