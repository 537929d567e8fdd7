// The steps of Add Webhook (and Edit Events' event picker): each is a quick input with a Back
// button (after the first step) and inline validation messages; dismissing one cancels the command.
import * as vscode from 'vscode';
import { validateWebhookUrl } from '../../core/input';
import { SUBSCRIBABLE_EVENTS } from '../../core/tree';
import { Cancelled } from '../errors';

/** What a step returns when the user pressed Back. */
export const BACK = Symbol('back');
export type Back = typeof BACK;

interface InputStep {
  title: string;
  value?: string;
  prompt?: string;
  password?: boolean;
  back?: boolean;
  validate(value: string): string | undefined;
}

/** One InputBox step: resolves with the accepted value (valid), BACK, or rejects with Cancelled. */
export function inputStep(step: InputStep): Promise<string | Back> {
  const ib = vscode.window.createInputBox();
  ib.title = step.title;
  ib.prompt = step.prompt;
  ib.password = step.password === true;
  ib.ignoreFocusOut = true;
  ib.value = step.value ?? '';
  ib.validationMessage = ib.value ? step.validate(ib.value) : undefined; // a value given in is checked at once
  if (step.back) ib.buttons = [vscode.QuickInputButtons.Back];
  return new Promise<string | Back>((resolve, reject) => {
    ib.onDidChangeValue((v) => (ib.validationMessage = v ? step.validate(v) : undefined));
    ib.onDidTriggerButton((b) => b === vscode.QuickInputButtons.Back && resolve(BACK));
    ib.onDidAccept(() => {
      const problem = step.validate(ib.value);
      if (problem) ib.validationMessage = problem;
      else resolve(ib.value);
    });
    ib.onDidHide(() => reject(new Cancelled()));
    ib.show();
  }).finally(() => ib.dispose());
}

interface PickStep<T extends vscode.QuickPickItem> {
  title: string;
  items: readonly T[];
  placeholder?: string;
  canPickMany?: boolean;
  back?: boolean;
  /** shown (as the placeholder) when the user accepts nothing */
  emptyMessage?: string;
}

/** One QuickPick step: resolves with the picked items, BACK, or rejects with Cancelled. */
export function pickStep<T extends vscode.QuickPickItem>(step: PickStep<T>): Promise<T[] | Back> {
  const qp = vscode.window.createQuickPick<T>();
  qp.title = step.title;
  qp.placeholder = step.placeholder;
  qp.canSelectMany = step.canPickMany === true;
  qp.ignoreFocusOut = true;
  qp.items = step.items;
  qp.selectedItems = step.items.filter((i) => i.picked);
  if (step.back) qp.buttons = [vscode.QuickInputButtons.Back];
  return new Promise<T[] | Back>((resolve, reject) => {
    qp.onDidTriggerButton((b) => b === vscode.QuickInputButtons.Back && resolve(BACK));
    qp.onDidAccept(() => {
      const picked = [...qp.selectedItems];
      if (picked.length === 0 && step.emptyMessage) qp.placeholder = step.emptyMessage;
      else if (picked.length > 0) resolve(picked);
    });
    qp.onDidHide(() => reject(new Cancelled()));
    qp.show();
  }).finally(() => qp.dispose());
}

export const ADD_WEBHOOK_STEPS = 3;

export interface UrlChoice {
  url: string;
  description: string;
}

/**
 * Step 1: the payload URL. The relays' URLs are offered; typing a URL offers it too, and "Another
 * URL…" (or a typed URL that is not valid) opens an input box that shows what is wrong as you type.
 */
export async function askUrl(choices: readonly UrlChoice[], current?: string): Promise<string | Back> {
  const title = `Add Webhook (1/${ADD_WEBHOOK_STEPS}): Payload URL`;
  for (;;) {
    const typed = await pickUrl(title, choices);
    if (typed.url !== undefined && !validateWebhookUrl(typed.url)) return typed.url;
    const r = await inputStep({
      title,
      value: typed.url ?? current ?? '',
      prompt: 'The URL the service delivers to, for example https://example.com/webhook',
      back: true,
      validate: validateWebhookUrl,
    });
    if (r !== BACK) return r;
  }
}

/** The pick of step 1: a choice or a typed URL (`url`), or "Another URL…" (`url` undefined). */
function pickUrl(title: string, choices: readonly UrlChoice[]): Promise<{ url?: string }> {
  const qp = vscode.window.createQuickPick<vscode.QuickPickItem & { url?: string }>();
  qp.title = title;
  qp.placeholder = 'Pick a relay, or type the URL the service should deliver to';
  qp.ignoreFocusOut = true;
  const fixed = [...choices.map((c) => ({ label: c.url, description: c.description, url: c.url })), { label: 'Another URL…', url: undefined }];
  qp.items = fixed;
  qp.onDidChangeValue((v) => {
    const t = v.trim();
    if (!t) return void (qp.items = fixed);
    const problem = validateWebhookUrl(t);
    qp.items = [{ label: t, description: problem ? `$(warning) ${problem}` : 'this URL', url: t, alwaysShow: true }, ...fixed];
  });
  return new Promise<{ url?: string }>((resolve, reject) => {
    qp.onDidAccept(() => resolve({ url: qp.selectedItems[0]?.url ?? (qp.value.trim() || undefined) }));
    qp.onDidHide(() => reject(new Cancelled()));
    qp.show();
  }).finally(() => qp.dispose());
}

/** The events a webhook delivers: pick many of the seven (current ones checked). */
export async function askEvents(
  current: readonly string[] = [],
  title = `Add Webhook (2/${ADD_WEBHOOK_STEPS}): Events`,
  back = false,
): Promise<string[] | Back> {
  const picked = await pickStep({
    title,
    items: SUBSCRIBABLE_EVENTS.map((e) => ({ label: e, picked: current.includes(e) })),
    placeholder: 'Events to deliver (Space checks one)',
    emptyMessage: 'Pick at least one event (Space checks one), then press Enter',
    canPickMany: true,
    back,
  });
  return picked === BACK ? BACK : picked.map((p) => p.label);
}

/**
 * Step 3: the signing secret: generated, entered (at least 8 characters), or none. `cannotGenerate`:
 * why a generated secret would not verify where the webhook delivers (a channel token's channel):
 * then it is not offered, and the pick says why. `note`: why the step is asked again.
 */
export async function askSecret(back = true, opts: { cannotGenerate?: string; note?: string } = {}): Promise<string | Back> {
  for (;;) {
    const picked = await pickStep({
      title: `Add Webhook (3/${ADD_WEBHOOK_STEPS}): Secret (content type: json)`,
      items: [
        ...(opts.cannotGenerate ? [] : [{ label: 'Generate a strong secret', description: '32 random bytes, hex', value: 'generate' }]),
        { label: 'Enter a secret', ...(opts.cannotGenerate ? { description: "the channel's own" } : {}), value: 'enter' },
        { label: 'No secret', description: 'deliveries are not signed', value: 'none' },
      ],
      ...(opts.note || opts.cannotGenerate ? { placeholder: opts.note ?? opts.cannotGenerate } : {}),
      back,
    });
    if (picked === BACK) return BACK;
    if (picked[0]!.value !== 'enter') return picked[0]!.value;
    const s = await inputStep({
      title: `Add Webhook (3/${ADD_WEBHOOK_STEPS}): Webhook secret`,
      ...(opts.note ? { prompt: opts.note } : {}),
      password: true,
      back: true,
      validate: (v) => (v.length >= 8 ? undefined : 'At least 8 characters'),
    });
    if (s !== BACK) return s;
  }
}
