// Context, secret and env names inside expressions: property chains found on the token stream, so
// string literals ('github.event') and longer names (github.event_name) never match.
import type { Token } from '../expression';
import type { RenameRule } from '../types';
import type { Reporter, StringScalar } from './base';

export interface ExprRule {
  rule: RenameRule;
  from: string[]; // lower-case segments, e.g. ['github', 'event'] or ['secrets', 'github_token']
  to: string[];
  label: string;
  target: string;
}

export interface ExprRules {
  byRoot: Map<string, ExprRule[]>;
  /** Roots of context rules: using one whole (toJSON(github)) gets a warning. */
  contextRoots: Map<string, ExprRule[]>;
}

export function exprRules(rules: readonly RenameRule[]): ExprRules {
  const byRoot = new Map<string, ExprRule[]>();
  const contextRoots = new Map<string, ExprRule[]>();
  for (const rule of rules) {
    let from: string[];
    let to: string[];
    if (rule.kind === 'context') [from, to] = [rule.from.split('.'), rule.to.split('.')];
    else if (rule.kind === 'secret')
      [from, to] = [
        ['secrets', rule.from],
        ['secrets', rule.to],
      ];
    else if (rule.kind === 'env')
      [from, to] = [
        ['env', rule.from],
        ['env', rule.to],
      ];
    else continue;
    const e: ExprRule = { rule, from: from.map((s) => s.toLowerCase()), to, label: from.join('.'), target: to.join('.') };
    const root = e.from[0]!;
    byRoot.set(root, [...(byRoot.get(root) ?? []), e]);
    if (rule.kind === 'context') contextRoots.set(root, [...(contextRoots.get(root) ?? []), e]);
  }
  // Longest `from` first, so a user rule for github.event.pull_request wins over github.event.
  for (const list of byRoot.values()) list.sort((a, b) => b.from.length - a.from.length);
  return { byRoot, contextRoots };
}

const isOp = (t: Token | undefined, op: string) => t !== undefined && t.kind === 'op' && t.text === op;

export function checkExpression(rep: Reporter, s: StringScalar, tokens: Token[], rules: ExprRules): void {
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.double) doubleQuoted(rep, s, t);
    if (t.kind !== 'ident' || isOp(tokens[i - 1], '.') || isOp(tokens[i + 1], '(')) continue;
    const root = t.text.toLowerCase();
    const cands = rules.byRoot.get(root);
    if (!cands) continue;
    const chain: Token[] = [t];
    let j = i + 1;
    while (isOp(tokens[j], '.') && tokens[j + 1]?.kind === 'ident') {
      chain.push(tokens[j + 1]!);
      j += 2;
    }
    const names = chain.map((c) => c.text.toLowerCase());
    const hit = cands.find((c) => c.from.length <= names.length && c.from.every((seg, k) => names[k] === seg));
    if (hit) {
      rename(rep, s, tokens, chain, hit);
      continue;
    }
    const stop = tokens[j];
    const prefixOf = cands.filter((c) => c.from.length > names.length && names.every((n, k) => c.from[k] === n));
    const star = isOp(stop, '.') && isOp(tokens[j + 1], '*');
    if (prefixOf.length > 0 && (isOp(stop, '[') || star)) {
      let end = star ? tokens[j + 1]!.end : stop!.end;
      let reach = prefixOf;
      if (isOp(stop, '[') && tokens[j + 1]?.kind === 'string' && isOp(tokens[j + 2], ']')) {
        const index = tokens[j + 1]!.text.toLowerCase();
        reach = prefixOf.filter((c) => c.from[names.length] === index);
        end = tokens[j + 2]!.end;
      } else if (isOp(stop, '[')) {
        const close = tokens.findIndex((x, k) => k > j && isOp(x, ']'));
        if (close > 0) end = tokens[close]!.end;
      }
      if (reach.length > 0) {
        const list = reach.map((c) => `\`${c.label}\` is \`${c.target}\``).join(', ');
        rep.note(
          'context-dynamic',
          `dynamic access to \`${names.join('.')}\` may reach a renamed name (${list} on the service); rename by hand`,
          s,
          t.start,
          end,
        );
      }
      continue;
    }
    const ctx = rules.contextRoots.get(root);
    if (ctx && chain.length === 1 && !isOp(stop, '.') && !isOp(stop, '[')) {
      const list = ctx.map((c) => `\`${c.label}\` is \`${c.target}\``).join(', ');
      rep.note('context-whole', `the whole \`${t.text}\` context is used; on the service ${list}; check what reads it`, s, t.start, t.end);
    }
  }
}

/**
 * `"push"` in an expression: invalid on both hosts (only single-quoted strings); fixed to `'push'`.
 * Inside a single-quoted YAML scalar each `'` of the fix is written as YAML's escape `''`
 * (`if: '${{ x == "push" }}'` becomes `if: '${{ x == ''push'' }}'`), or the file would not parse.
 */
function doubleQuoted(rep: Reporter, s: StringScalar, t: Token): void {
  const single = `'${t.text.replace(/'/g, "''")}'`;
  const inFile = s.node.type === 'QUOTE_SINGLE' ? single.replace(/'/g, "''") : single;
  const message = `the double-quoted string \`"${t.text}"\` is not valid in an expression (strings take single quotes: \`${single}\`)`;
  rep.rename('expression-double-quote', message, s, t.start, t.end, inFile);
}

function adjacent(tokens: Token[], from: Token, to: Token): boolean {
  let k = tokens.indexOf(from);
  for (; tokens[k] !== to; k++) if (tokens[k]!.end !== tokens[k + 1]!.start) return false;
  return true;
}

function rename(rep: Reporter, s: StringScalar, tokens: Token[], chain: Token[], e: ExprRule): void {
  let first = 0;
  let last = e.from.length - 1;
  let replacement = e.to.join('.');
  if (e.from.length === e.to.length) {
    while (first < last && e.from[first] === e.to[first]!.toLowerCase()) first++;
    while (last > first && e.from[last] === e.to[last]!.toLowerCase()) last--;
    replacement = e.to.slice(first, last + 1).join('.');
  } else first = 0;
  const a = chain[first]!;
  const b = chain[last]!;
  if (e.rule.kind === 'env') {
    rep.envOccurrences.push({ rule: e.rule, scalar: s, from: a.start, to: b.end, where: 'expression' });
    return;
  }
  const blocked = adjacent(tokens, a, b) ? undefined : 'whitespace inside the property path';
  rep.rename(e.rule.id, `\`${e.label}\` is \`${e.target}\` on the service`, s, a.start, b.end, replacement, blocked);
}
