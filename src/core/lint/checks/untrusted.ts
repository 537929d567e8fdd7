// `untrusted-input`: a value that anyone who opens an issue or a pull request controls (a title, a
// body, a branch name, a commit message, an author's name or email…) used directly in a `run:`
// script or in the `script:` of `actions/github-script` / `service/script` is script injection.
// The list of untrusted fields is the one actionlint uses for `github.event.*` (expr_insecure.go,
// from GitHub's security guide and CodeQL's ExpressionInjection query), and the same fields under
// `service.event.*`, so porting a workflow never hides the warning. Matching follows actionlint:
// property chains (`a.b`, `a['b']`), an index (`a[0]`, `a[expr]`) reaches an array's elements, an
// object filter (`a.*`) reaches every field, and nothing inside contains()/startsWith()/endsWith()
// counts (their result is a boolean).
import type { Token } from '../expression';
import type { Reporter, StringScalar } from './base';
import { untrustedQuickFix, type FixPlace } from './untrustedFix';

interface TrustNode {
  name: string;
  parent?: TrustNode;
  /** Absent: a leaf, an untrusted value. */
  children?: Map<string, TrustNode>;
}

type Spec = { [name: string]: Spec | null };

function build(name: string, spec: Spec | null, parent?: TrustNode): TrustNode {
  const node: TrustNode = { name, ...(parent ? { parent } : {}) };
  if (spec) node.children = new Map(Object.entries(spec).map(([k, v]) => [k, build(k, v, node)]));
  return node;
}

const EVENT: Spec = {
  issue: { title: null, body: null },
  pull_request: { title: null, body: null, head: { ref: null, label: null, repo: { default_branch: null } } },
  comment: { body: null },
  review: { body: null },
  review_comment: { body: null },
  pages: { '*': { page_name: null } },
  commits: { '*': { message: null, author: { email: null, name: null } } },
  head_commit: { message: null, author: { email: null, name: null } },
  discussion: { title: null, body: null },
};

/** Roots: `github` (the external host's names) and `service` (the same event fields after the port). */
export const UNTRUSTED_ROOTS: ReadonlyMap<string, TrustNode> = new Map([
  ['github', build('github', { event: EVENT, head_ref: null })],
  ['service', build('service', { event: EVENT })],
]);

const SAFE_CALLS = new Set(['contains', 'startswith', 'endswith']);

export interface UntrustedUse {
  /** Value offsets of the chain (from its root name to its last accessor). */
  start: number;
  end: number;
  /** The untrusted fields it reaches, e.g. `github.event.issue.title` (several through an object filter). */
  paths: string[];
}

const isOp = (t: Token | undefined, op: string) => t !== undefined && t.kind === 'op' && t.text === op;

function pathOf(n: TrustNode): string {
  return n.parent ? `${pathOf(n.parent)}.${n.name}` : n.name;
}

/** Index of the token that closes the bracket opened at `open` (`(`/`)` or `[`/`]`), or -1. */
function closing(tokens: readonly Token[], open: number, to: number): number {
  const [o, c] = tokens[open]!.text === '(' ? ['(', ')'] : ['[', ']'];
  let depth = 0;
  for (let k = open; k < to; k++) {
    if (isOp(tokens[k], o)) depth++;
    else if (isOp(tokens[k], c) && --depth === 0) return k;
  }
  return -1;
}

class Chain {
  cur: TrustNode[];
  filtering = false;
  constructor(root: TrustNode | undefined) {
    this.cur = root ? [root] : [];
  }
  prop(name: string): void {
    this.cur = this.cur.flatMap((n) => n.children?.get(name) ?? []);
  }
  index(): void {
    if (this.filtering) {
      this.filtering = false; // `a.*.body[0]` reads as `a.x[0].body`
      return;
    }
    this.cur = this.cur.flatMap((n) => n.children?.get('*') ?? []);
  }
  filter(): void {
    this.filtering = true;
    this.cur = this.cur.flatMap((n) => {
      const star = n.children?.get('*');
      return star ? [star] : [...(n.children?.values() ?? [])];
    });
  }
}

/** The untrusted values an expression's tokens read, in order; `from`/`to` bound the scan. */
export function untrustedUses(tokens: readonly Token[], from = 0, to = tokens.length, out: UntrustedUse[] = []): UntrustedUse[] {
  let i = from;
  while (i < to) {
    const t = tokens[i]!;
    if (t.kind === 'ident' && isOp(tokens[i + 1], '(')) {
      const close = closing(tokens, i + 1, to);
      if (SAFE_CALLS.has(t.text.toLowerCase()) && close > 0) i = close + 1;
      else i += 2;
      continue;
    }
    if (t.kind !== 'ident' || isOp(tokens[i - 1], '.')) {
      i++;
      continue;
    }
    i = chainAt(tokens, i, to, out);
  }
  return out;
}

/** Follows the property chain that starts at the root name `tokens[i]`; returns the index after it. */
function chainAt(tokens: readonly Token[], i: number, to: number, out: UntrustedUse[]): number {
  const root = tokens[i]!;
  const chain = new Chain(UNTRUSTED_ROOTS.get(root.text.toLowerCase()));
  let j = i + 1;
  let end = root.end;
  for (;;) {
    if (isOp(tokens[j], '.') && tokens[j + 1]?.kind === 'ident' && j + 1 < to) {
      chain.prop(tokens[j + 1]!.text.toLowerCase());
      end = tokens[j + 1]!.end;
      j += 2;
    } else if (isOp(tokens[j], '.') && isOp(tokens[j + 1], '*') && j + 1 < to) {
      chain.filter();
      end = tokens[j + 1]!.end;
      j += 2;
    } else if (isOp(tokens[j], '[') && j < to) {
      const close = closing(tokens, j, to);
      if (close < 0) break;
      if (close === j + 2 && tokens[j + 1]!.kind === 'string') chain.prop(tokens[j + 1]!.text.toLowerCase());
      else {
        untrustedUses(tokens, j + 1, close, out); // the index expression is read on its own first
        chain.index();
      }
      end = tokens[close]!.end;
      j = close + 1;
    } else break;
  }
  const leaves = chain.cur.filter((n) => !n.children);
  if (leaves.length > 0) out.push({ start: root.start, end, paths: [...new Set(leaves.map(pathOf))].sort() });
  return j;
}

/** Reports each untrusted value read in the `${{ }}` spans of a script, with the quick fix where it is certain. */
export function checkUntrusted(
  rep: Reporter,
  s: StringScalar,
  spans: readonly { start: number; end: number; tokens: Token[] }[],
  where: string,
  place: FixPlace,
): void {
  for (const span of spans) {
    const uses = untrustedUses(span.tokens);
    if (uses.length === 0) continue;
    // The env variable is named for what the whole span reads: its outermost (first) untrusted chain.
    const outer = uses.reduce((a, b) => (b.start < a.start ? b : a));
    for (const use of uses) {
      const fields = use.paths.map((p) => `\`${p}\``).join(', ');
      const what = use.paths.length === 1 ? `${fields} is potentially untrusted` : `the object filter reaches potentially untrusted fields (${fields})`;
      rep.note(
        'untrusted-input',
        `${what}: used directly in ${where} it can inject code (script injection); pass it through env: and read the environment variable instead`,
        s,
        use.start,
        use.end,
      );
      const fix = untrustedQuickFix(s, span, spans, outer.paths, place);
      if (fix) rep.findings[rep.findings.length - 1]!.quickFix = fix;
    }
  }
}
