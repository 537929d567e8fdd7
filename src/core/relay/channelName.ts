// The one rule for channel names, for both stores (file journal and JetStream) and the CLI: 1 to
// 64 letters, digits, '.', '_' or '-', starting with a letter or digit, with no two dots in a row
// and no dot at the end. On JetStream a name is part of a subject (sh.delivery.<name>), whose
// dot-separated tokens must not be empty: 'x.' and 'a..b' would break it, so neither store takes them.
export const CHANNEL_NAME_RE = /^[A-Za-z0-9](?:[A-Za-z0-9_-]|\.(?![.]|$)){0,63}$/;

export const CHANNEL_NAME_RULE = "1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit; no '..' and no '.' at the end";
