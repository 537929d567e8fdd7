// Typed reads of the extension's settings.
import * as vscode from 'vscode';
import { DEFAULTS } from './ids';

export interface Settings {
  baseUrl: string;
  repositories: string[];
  relayPort: number;
  relayForwardUrl: string;
  workflowGlobs: string[];
  eventHeader: string;
  deliveryHeader: string;
}

export function settings(): Settings {
  const c = vscode.workspace.getConfiguration('serviceHooks');
  return {
    baseUrl: (c.get<string>('baseUrl') || DEFAULTS.baseUrl).replace(/\/+$/, ''),
    repositories: c.get<string[]>('repositories') ?? [],
    relayPort: c.get<number>('relay.port') ?? DEFAULTS.relayPort,
    relayForwardUrl: c.get<string>('relay.forwardUrl') ?? '',
    workflowGlobs: c.get<string[]>('lint.workflowGlobs') ?? [...DEFAULTS.workflowGlobs],
    eventHeader: c.get<string>('eventHeader') || DEFAULTS.eventHeader,
    deliveryHeader: c.get<string>('deliveryHeader') || DEFAULTS.deliveryHeader,
  };
}
