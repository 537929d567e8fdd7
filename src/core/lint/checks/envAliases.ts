// Aliases and the env rename. The walker does not follow aliases, so an env map reached through an
// alias (`env: *env`, `<<: *env`, `*key: …`) hides its keys from the env map's place, and an
// anchored env map or key that an alias repeats elsewhere has more than one place (and consumer).
// Either way the rename of that name is blocked: a warning, never a fix.
import { isAlias, isMap, isScalar, isSeq, type Alias, type Document, type Node, type Scalar } from 'yaml';
import type { RenameRule } from '../types';
import { StringScalar, type Reporter } from './base';

/** The anchored nodes that some alias in the document refers to. */
export function aliasedNodes(doc: Document): Set<Node> {
  const out = new Set<Node>();
  const seen = new Set<Node>();
  const visit = (n: unknown): void => {
    if (!n || typeof n !== 'object' || seen.has(n as Node)) return;
    seen.add(n as Node);
    if (isAlias(n)) {
      const r = n.resolve(doc);
      if (r) out.add(r);
    } else if (isMap(n)) {
      for (const p of n.items) {
        visit(p.key);
        visit(p.value);
      }
    } else if (isSeq(n)) n.items.forEach(visit);
  };
  visit(doc.contents);
  return out;
}

/** String key scalars of the map an alias (or a merge of aliases) resolves to, following nested merges. */
function keysBehind(doc: Document, n: unknown, out: Scalar[], depth = 0): void {
  if (depth > 16 || !n) return;
  if (isAlias(n)) return keysBehind(doc, n.resolve(doc), out, depth + 1);
  if (isSeq(n)) return n.items.forEach((x) => keysBehind(doc, x, out, depth + 1));
  if (isScalar(n)) {
    if (typeof n.value === 'string') out.push(n);
    return;
  }
  if (!isMap(n)) return;
  for (const p of n.items) {
    if (isScalar(p.key) && p.key.value === '<<') keysBehind(doc, p.value, out, depth + 1);
    else if (isScalar(p.key) && typeof p.key.value === 'string') out.push(p.key);
    else if (isAlias(p.key)) keysBehind(doc, p.key, out, depth + 1);
  }
}

/**
 * `alias` stands where env keys are expected (the env map itself, a `<<` merge in it, or a key):
 * every env-rule name behind it becomes a key occurrence (so it gets its warning where it is written)
 * and blocks its rule.
 */
export function envAlias(rep: Reporter, text: string, doc: Document, rules: readonly RenameRule[], alias: Alias): void {
  const keys: Scalar[] = [];
  keysBehind(doc, alias, keys);
  for (const rule of rules) {
    if (rule.kind !== 'env') continue;
    const hits = keys.filter((k) => k.value === rule.from && k.range);
    if (hits.length === 0) continue;
    for (const k of hits) rep.envOccurrences.push({ rule, scalar: new StringScalar(text, k, rule.from), from: 0, to: rule.from.length, where: 'key' });
    rep.envBlocks.push({
      rule,
      offset: alias.range![0],
      why: `the alias \`*${alias.source}\` brings in env keys that the linter cannot rename in place; rename by hand`,
    });
  }
}

/** An env key under an anchored node that an alias repeats: the key has another place. */
export function anchoredEnvKey(rep: Reporter, rule: RenameRule, key: Scalar, anchored: Node): void {
  rep.envBlocks.push({
    rule,
    offset: key.range![0],
    why: `it is inside the anchored node \`&${anchored.anchor ?? ''}\`, which an alias repeats elsewhere, and the linter does not rename through aliases; rename by hand`,
  });
}
