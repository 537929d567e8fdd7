// Who reads an env map's variable by name, outside the file's own references (so the name must stay):
// - a step's env: its action (`uses:`), or a tool of the rule's `readBy` (e.g. `gh`) that its run
//   script calls: the tool reads the variable by name whatever else the script does with it (a
//   script that also passes `${GITHUB_TOKEN}` to `git push` still leaves `gh` reading GITHUB_TOKEN);
// - a container's or service's env: the image;
// - a job's env: its container or services, or any of its steps as above (steps inherit the job env);
// - the workflow's env: any job as above;
// - a composite action's step env (`runs.steps[n].env`): as a workflow step's.
import { isAlias, isMap, isScalar, isSeq, type Document, type YAMLMap } from 'yaml';
import type { LineIndex } from '../positions';
import type { RenameRule } from '../types';

type Path = readonly (string | number | null)[];

const toolCalls = new Map<string, RegExp>();

function callsTool(script: string, tool: string): boolean {
  let re = toolCalls.get(tool);
  if (!re) {
    re = new RegExp(`(?:^|[\\s;&|(\`])${tool.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=[ \\t]|$)`, 'm');
    toolCalls.set(tool, re);
  }
  return re.test(script);
}

function asMap(doc: Document, n: unknown): YAMLMap | undefined {
  const r = isAlias(n) ? n.resolve(doc) : n;
  return isMap(r) ? r : undefined;
}

function str(m: YAMLMap, key: string): { value: string; offset: number } | undefined {
  const v = m.get(key, true);
  return isScalar(v) && typeof v.value === 'string' ? { value: v.value, offset: v.range?.[0] ?? 0 } : undefined;
}

/** `where(offset)`: empty for the step that owns the env map, " on line N" for a step below a job or workflow. */
function stepConsumer(doc: Document, step: unknown, rule: RenameRule, where: (offset: number) => string): string | undefined {
  const m = asMap(doc, step);
  if (!m) return undefined;
  const uses = str(m, 'uses');
  if (uses) return `the action \`${uses.value}\`${where(uses.offset)}`;
  const run = str(m, 'run');
  if (!run) return undefined;
  const tool = (rule.readBy ?? []).find((t) => callsTool(run.value, t));
  return tool === undefined ? undefined : `\`${tool}\`, called by the run script${where(run.offset)}`;
}

function jobConsumer(doc: Document, job: YAMLMap, rule: RenameRule, lines: LineIndex): string | undefined {
  const where = (offset: number) => ` on line ${lines.at(offset).line}`;
  const container = job.get('container', true);
  if (container) {
    const image = isScalar(container) ? container.value : asMap(doc, container)?.get('image');
    return `the job's container${typeof image === 'string' ? ` \`${image}\`` : ''}`;
  }
  const services = asMap(doc, job.get('services', true));
  if (services && services.items.length > 0) return `the job's service containers`;
  const steps = job.get('steps', true);
  const list = isAlias(steps) ? steps.resolve(doc) : steps;
  if (!isSeq(list)) return undefined;
  for (const step of list.items) {
    const c = stepConsumer(doc, step, rule, where);
    if (c) return c;
  }
  return undefined;
}

/** The consumer of the env map owned by the node at `owner` (whose map is `parent`), or undefined. */
export function envConsumer(doc: Document, lines: LineIndex, owner: Path, parent: YAMLMap, rule: RenameRule): string | undefined {
  if (owner.length === 4 && owner[0] === 'jobs' && owner[2] === 'steps') return stepConsumer(doc, parent, rule, () => '');
  if (owner.length === 3 && owner[0] === 'runs' && owner[1] === 'steps') return stepConsumer(doc, parent, rule, () => ''); // a composite action's step
  if ((owner.length === 3 && owner[2] === 'container') || (owner.length === 4 && owner[2] === 'services')) {
    const image = parent.get('image');
    return `the container \`${typeof image === 'string' ? image : String(owner[owner.length - 1])}\``;
  }
  if (owner.length === 2 && owner[0] === 'jobs') return jobConsumer(doc, parent, rule, lines);
  if (owner.length === 0) {
    const jobs = asMap(doc, parent.get('jobs', true));
    for (const pair of jobs?.items ?? []) {
      const job = asMap(doc, pair.value);
      const c = job && jobConsumer(doc, job, rule, lines);
      if (c) return c;
    }
  }
  return undefined;
}
