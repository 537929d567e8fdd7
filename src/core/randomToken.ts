// Random tokens and secrets that are safe to pass as a command-line option's value: every token
// and generated webhook secret of the relay, the CLI and the editor comes from here.
import { randomBytes } from 'node:crypto';

/**
 * `bytes` random bytes as base64url, never starting with '-'. One token in 64 would otherwise
 * start with '-', and `--token -abc…` is then refused as an ambiguous option by every CLI that
 * parses options the usual way (ours included). A draw that starts with '-' is drawn again,
 * which costs under 0.03 bits of the 8·bytes.
 */
export function randomToken(bytes: number, draw: (n: number) => Buffer = randomBytes): string {
  for (;;) {
    const token = draw(bytes).toString('base64url');
    if (!token.startsWith('-')) return token;
  }
}

/** A new webhook signing secret (32 random bytes): the CLI's --generate-secret and the editor's generated secrets. */
export function newSecret(): string {
  return randomToken(32);
}
