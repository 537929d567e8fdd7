// Pins the Getting Started walkthrough in package.json: the three journeys, and each step with a
// completion event on a declared command, context key or view, media that exists, and a button.
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMANDS, CONTEXT, VIEWS, WALKTHROUGH_ID } from '../../../src/extension/ids';

const ROOT = join(__dirname, '..', '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

interface Step {
  id: string;
  title: string;
  description: string;
  media: { image?: string; markdown?: string; altText?: string };
  completionEvents: string[];
}

describe('Getting Started walkthrough (package.json)', () => {
  const walkthroughs: { id: string; steps: Step[] }[] = pkg.contributes.walkthroughs;

  it('one walkthrough, serviceHooks.gettingStarted, covering sign-in, receiving deliveries and porting a workflow', () => {
    assert.equal(walkthroughs.length, 1);
    assert.equal(walkthroughs[0]!.id, WALKTHROUGH_ID);
    const commands = walkthroughs[0]!.steps.map((s) => s.description).join('\n');
    for (const id of [COMMANDS.signIn, COMMANDS.startRelay, COMMANDS.connectRelay, COMMANDS.forwardToLocalApp, COMMANDS.portWorkflows])
      assert.ok(commands.includes(`(command:${id})`), id);
  });

  it('each step completes on a declared command, context key or view, shows media that exists, and has a button', () => {
    const commands = new Set<string>(Object.values(COMMANDS));
    const contexts = new Set<string>(Object.values(CONTEXT));
    const views = new Set<string>(Object.values(VIEWS));
    for (const s of walkthroughs[0]!.steps) {
      assert.ok(s.completionEvents.length > 0, `${s.id}: a completion event`);
      for (const e of s.completionEvents) {
        const [kind, id] = e.split(/:(.*)/s) as [string, string];
        const known = kind === 'onCommand' ? commands : kind === 'onContext' ? contexts : kind === 'onView' ? views : undefined;
        assert.ok(known?.has(id), `${s.id}: ${e} names a declared ${kind}`);
      }
      const media = s.media.image ?? s.media.markdown;
      assert.ok(media && existsSync(join(ROOT, media)), `${s.id}: media ${media}`);
      if (s.media.image) assert.ok(s.media.altText, `${s.id}: alt text`);
      const buttons = [...s.description.matchAll(/\]\(command:([\w.]+)\)/g)].map((m) => m[1]!);
      assert.ok(buttons.length > 0, `${s.id}: a button`);
      for (const b of buttons) assert.ok(commands.has(b) || (b.endsWith('.focus') && views.has(b.slice(0, -'.focus'.length))), `${s.id}: ${b}`);
    }
  });
});
