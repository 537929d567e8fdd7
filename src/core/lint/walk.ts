// Walks a parsed workflow or composite action and hands each string scalar to the checks that apply
// where it sits: `${{ }}` spans anywhere, implicit `if:` (job and step), `uses:` (job: a reusable
// workflow; step: an action), env keys (with who reads them by name, checks/envConsumers.ts), `run:`.
// A composite action (`runs.using: composite`) has its steps at `runs.steps` and env maps only there.
// Aliases are not followed: the anchored node is checked once, where its text is. Where aliases meet
// env maps, the env rename is blocked (checks/envAliases.ts).
import { isAlias, isMap, isScalar, isSeq, type Document, type Node, type Pair, type YAMLMap } from 'yaml';
import { StringScalar, type Reporter } from './checks/base';
import { checkUses } from './checks/actions';
import { checkExpression, type ExprRules } from './checks/expressions';
import { checkShell } from './checks/shell';
import { checkUntrusted } from './checks/untrusted';
import type { Lang } from './checks/untrustedFix';
import { checkTargets } from './checks/envTargets';
import { anchoredEnvKey, envAlias } from './checks/envAliases';
import { envConsumer } from './checks/envConsumers';
import { templateSpans, tokenize } from './expression';
import type { RenameRule } from './types';

type Path = readonly (string | number | null)[];

export interface WalkContext {
  text: string;
  rep: Reporter;
  rules: readonly RenameRule[];
  expr: ExprRules;
  envNames: Set<string>;
  doc: Document;
  /** Anchored nodes that an alias refers to. */
  aliased: Set<Node>;
  /** The file is a composite action (`runs.using: composite`), not a workflow. */
  composite: boolean;
}

const isJob = (p: Path) => p.length === 2 && p[0] === 'jobs';
const isWorkflowStep = (p: Path) => p.length === 4 && p[0] === 'jobs' && p[2] === 'steps' && typeof p[3] === 'number';
/** A step of a composite action: `runs.steps[n]`. */
export const isActionStep = (p: Path) => p.length === 3 && p[0] === 'runs' && p[1] === 'steps' && typeof p[2] === 'number';

function isEnvMap(p: Path, composite: boolean): boolean {
  if (p[p.length - 1] !== 'env') return false;
  const q = p.slice(0, -1);
  if (composite) return isActionStep(q);
  if (p.length === 1) return true;
  if (p[0] !== 'jobs') return false;
  return isJob(q) || isWorkflowStep(q) || (q.length === 3 && q[2] === 'container') || (q.length === 4 && q[2] === 'services');
}

/** Whether a parsed document is a composite action: `runs.using: composite`. */
export function isCompositeAction(doc: Document): boolean {
  const using = doc.getIn(['runs', 'using']);
  return typeof using === 'string' && using.toLowerCase() === 'composite';
}

/** `anchored`: the nearest node at or above `node` that an alias repeats elsewhere. */
export function walk(ctx: WalkContext, node: Node | null | undefined, path: Path, parent?: YAMLMap, anchored?: Node): void {
  if (!node) return;
  if (isAlias(node)) {
    if (isEnvMap(path, ctx.composite)) envAlias(ctx.rep, ctx.text, ctx.doc, ctx.rules, node);
    return;
  }
  const here = ctx.aliased.has(node) ? node : anchored;
  if (isMap(node)) {
    const envMap = isEnvMap(path, ctx.composite);
    const consumer = envMap && parent ? (rule: RenameRule) => envConsumer(ctx.doc, ctx.rep.lines, path.slice(0, -1), parent, rule) : undefined;
    for (const pair of node.items as Pair<Node | null, Node | null>[]) {
      const key = pair.key;
      let name: string | null = null;
      if (envMap && isAlias(key)) envAlias(ctx.rep, ctx.text, ctx.doc, ctx.rules, key);
      if (envMap && isScalar(key) && key.value === '<<' && pair.value && (isAlias(pair.value) || isSeq(pair.value))) {
        const merged = isAlias(pair.value) ? [pair.value] : pair.value.items.filter(isAlias);
        for (const a of merged) envAlias(ctx.rep, ctx.text, ctx.doc, ctx.rules, a);
      }
      if (isScalar(key)) {
        name = String(key.value);
        const keyAnchored = ctx.aliased.has(key) ? key : here;
        if (typeof key.value === 'string')
          scalar(ctx, key, path, { envKey: envMap, ...(consumer ? { consumer } : {}), ...(keyAnchored ? { anchored: keyAnchored } : {}) });
      }
      walk(ctx, pair.value, [...path, name], node, here);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => walk(ctx, item as Node, [...path, i], undefined, here));
  } else if (isScalar(node) && typeof node.value === 'string') {
    scalar(ctx, node, path);
  }
}

function scalar(
  ctx: WalkContext,
  node: import('yaml').Scalar,
  path: Path,
  key?: { envKey: boolean; consumer?: (rule: RenameRule) => string | undefined; anchored?: Node },
): void {
  const value = node.value as string;
  const s = new StringScalar(ctx.text, node, value);
  const spans = value.includes('${{') ? templateSpans(value) : [];
  checkTargets(ctx.rep, s, ctx.rules);
  for (const span of spans) checkExpression(ctx.rep, s, span.tokens, ctx.expr);
  if (key) {
    if (key.envKey && ctx.envNames.has(value)) {
      for (const rule of ctx.rules) {
        if (rule.kind === 'env' && rule.from === value) {
          if (key.anchored) anchoredEnvKey(ctx.rep, rule, node, key.anchored);
          const consumer = key.consumer?.(rule);
          ctx.rep.envOccurrences.push({ rule, scalar: s, from: 0, to: value.length, where: 'key', ...(consumer ? { consumer } : {}) });
        }
      }
    }
    return;
  }
  const last = path[path.length - 1];
  const owner = path.slice(0, -1);
  const atStep = ctx.composite ? isActionStep(owner) : isWorkflowStep(owner);
  const atJob = !ctx.composite && isJob(owner);
  if (last === 'if' && (atJob || atStep) && !value.includes('${{')) {
    const run = tokenize(value, 0, false);
    if (run.end >= 0) checkExpression(ctx.rep, s, run.tokens, ctx.expr);
  } else if (last === 'uses' && (atJob || atStep)) {
    checkUses(ctx.rep, s, ctx.rules, atJob ? 'reusable workflow' : 'action');
  } else if (last === 'run' && atStep) {
    checkShell(ctx.rep, s, spans, ctx.rules);
    if (spans.length > 0) checkUntrusted(ctx.rep, s, spans, 'a run: script', { doc: ctx.doc, path, step: owner, lang: shellOf(ctx, owner) });
  } else if (last === 'script' && spans.length > 0 && owner[owner.length - 1] === 'with' && isScriptStep(ctx, owner.slice(0, -1))) {
    checkUntrusted(ctx.rep, s, spans, 'the script: of a script action', { doc: ctx.doc, path, step: owner.slice(0, -1), lang: 'js' });
  }
}

/** A step (of a workflow or a composite action) that uses actions/github-script or service/script. */
function isScriptStep(ctx: WalkContext, step: Path): boolean {
  if (!(ctx.composite ? isActionStep(step) : isWorkflowStep(step))) return false;
  const uses = ctx.doc.getIn([...step, 'uses']);
  return typeof uses === 'string' && /^(?:actions\/github-script|service\/script)@/i.test(uses.trim());
}

/** The language a step's run: script is in, for the quick fix: its shell, the job's or workflow's default, or the runner's. */
function shellOf(ctx: WalkContext, step: Path): Lang | undefined {
  const job = ctx.composite ? [] : step.slice(0, 2);
  const get = (p: Path) => {
    const v = ctx.doc.getIn(p);
    return typeof v === 'string' ? v : undefined;
  };
  const shell = get([...step, 'shell']) ?? (ctx.composite ? undefined : (get([...job, 'defaults', 'run', 'shell']) ?? get(['defaults', 'run', 'shell'])));
  if (shell !== undefined) {
    const cmd = shell.trim().split(/\s+/)[0]!.toLowerCase();
    return cmd === 'bash' || cmd === 'sh' ? 'sh' : cmd === 'pwsh' || cmd === 'powershell' ? 'pwsh' : undefined;
  }
  if (ctx.composite) return undefined;
  const runsOn = ctx.doc.getIn([...job, 'runs-on']);
  if (typeof runsOn !== 'string' || runsOn.includes('${{')) return undefined;
  return /windows/i.test(runsOn) ? 'pwsh' : 'sh';
}
