// The steps of Forward Webhooks to Local App… after the local URL (issue 38 item 7): which of the
// webhook's events go to which app (its own app, the default one, or none: skipped by the filter),
// and, for an https app, how its certificate is trusted (a CA file: the machine setting
// serviceHooks.relay.forwardCa; or Skip verification, for apps on this machine only).
import * as vscode from 'vscode';
import { farTarget } from '../../core/relay/appTrust';
import { eventRouteRows, routingTargets, withEventRoute, type ForwardRouting } from '../../core/relay/forwardRouting';
import { localAppUrlProblem } from '../../core/tree';
import { settings } from '../config';
import { SETTINGS } from '../ids';
import { caFileProblem } from '../relay/forwardTrust';
import { BACK, inputStep, pickStep } from '../webhookInputs';

export const FORWARD_AS_SHOWN = 'Forward as shown';

/** Asks where each of `events` goes, starting from every event to `to`; returns the choices. */
export async function askRouting(events: readonly string[], to: string, title: string): Promise<ForwardRouting> {
  let r: ForwardRouting = { to };
  let note: string | undefined;
  for (;;) {
    const rows = eventRouteRows(events, r);
    const forwarded = rows.filter((row) => row.how !== 'skipped').length;
    const items = [
      {
        label: `$(check) ${FORWARD_AS_SHOWN}`,
        description: forwarded === rows.length ? 'every event' : `${forwarded} of ${rows.length} events; the others are skipped by the filter`,
        row: undefined,
      },
      ...rows.map((row) => ({
        label: row.event,
        description: row.how === 'skipped' ? 'not forwarded (skipped by the filter)' : `→ ${row.url}${row.how === 'default' ? ' (default)' : ''}`,
        row,
      })),
    ];
    const picked = await pickStep({ title, items, placeholder: note ?? 'Pick an event to send it to another app, or to leave it out' });
    const item = picked === BACK ? undefined : picked[0];
    if (!item) continue;
    if (!item.row) {
      if (forwarded > 0) return r;
      note = 'Forward at least one event: pick one and send it to an app';
      continue;
    }
    note = undefined;
    const event = item.row.event;
    const how = await pickStep({
      title: `${title}: ${event}`,
      items: [
        { label: 'The default app', description: to, how: 'default' as const },
        { label: 'Its own app…', description: 'another local URL for this event', how: 'own' as const },
        { label: 'Do not forward', description: 'skipped by the filter, and recorded so at the relay', how: 'skipped' as const },
      ],
    });
    if (how === BACK || !how[0]) continue;
    const url =
      how[0].how === 'own'
        ? await inputStep({
            title: `${title}: ${event}'s app`,
            prompt: `The local URL ${event} deliveries go to`,
            value: item.row.url ?? to,
            validate: localAppUrlProblem,
          })
        : undefined;
    if (url === BACK) continue;
    r = withEventRoute(r, events, event, how[0].how, url?.trim());
  }
}

/** For a set-up with an https app: how its certificate is trusted; unchanged for http apps. */
export async function askTrust(r: ForwardRouting, title: string): Promise<ForwardRouting> {
  const https = routingTargets(r).filter((t) => t.startsWith('https:'));
  if (https.length === 0) return r;
  const ca = settings().relayForwardCa;
  const local = farTarget(https) === undefined;
  const items = [
    { label: 'Check the certificate', description: ca ? `the usual roots and ${ca}` : 'the usual roots', how: 'verify' as const },
    { label: 'Trust a CA file…', description: 'serviceHooks.relay.forwardCa (this machine)', how: 'ca' as const },
    ...(local ? [{ label: 'Skip verification', description: 'apps on this machine only, like forward --skip-verify', how: 'skip' as const }] : []),
  ];
  const picked = await pickStep({
    title,
    items,
    placeholder: local ? `How to trust ${https.map((u) => new URL(u).host).join(', ')}` : 'Skip verification is offered for apps on this machine only',
  });
  const how = picked === BACK ? 'verify' : (picked[0]?.how ?? 'verify');
  if (how === 'skip') return { ...r, skipVerify: true };
  const { skipVerify: _s, ...checked } = r;
  if (how === 'ca') await askCaFile(title, ca);
  return checked;
}

/** The CA file, checked as it is typed (it exists and holds a PEM certificate), kept in the machine setting. */
async function askCaFile(title: string, current: string): Promise<void> {
  const path = await inputStep({
    title: `${title}: CA file`,
    prompt: "The PEM file of the CA that signed your app's certificate (kept in serviceHooks.relay.forwardCa)",
    value: current,
    validate: (v) => (v.trim() ? caFileProblem(v.trim()) : "Give the path of the CA's PEM file."),
  });
  if (path === BACK) return;
  await vscode.workspace.getConfiguration().update(SETTINGS.relayForwardCa, path.trim(), vscode.ConfigurationTarget.Global);
}
