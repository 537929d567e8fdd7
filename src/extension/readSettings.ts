// The extension's settings as one typed object, read through the SETTINGS keys (ids.ts) only.
// No vscode import: test/unit/extension/settings.test.ts reads it against package.json, so a
// mistyped key fails a test instead of silently yielding the default.
import { DEFAULTS, SETTINGS } from './ids';

export interface Settings {
  baseUrl: string;
  repositories: string[];
  relayPort: number;
  relayForwardUrl: string;
  /** A CA (PEM file) trusted for forwarding to local https apps; '' none. */
  relayForwardCa: string;
  workflowGlobs: string[];
  eventHeader: string;
  deliveryHeader: string;
  /** seconds between refreshes of the expanded webhooks' deliveries; 0 = off */
  refreshInterval: number;
}

/** What vscode.WorkspaceConfiguration offers (`getConfiguration()` with no section: full keys). */
export interface ConfigurationSource {
  get<T>(key: string): T | undefined;
}

export function readSettings(c: ConfigurationSource): Settings {
  const interval = c.get<number>(SETTINGS.refreshInterval);
  return {
    baseUrl: (c.get<string>(SETTINGS.baseUrl) || DEFAULTS.baseUrl).trim().replace(/\/+$/, ''),
    repositories: c.get<string[]>(SETTINGS.repositories) ?? [],
    relayPort: c.get<number>(SETTINGS.relayPort) ?? DEFAULTS.relayPort,
    relayForwardUrl: c.get<string>(SETTINGS.relayForwardUrl) ?? '',
    relayForwardCa: (c.get<string>(SETTINGS.relayForwardCa) ?? '').trim(),
    workflowGlobs: c.get<string[]>(SETTINGS.workflowGlobs) ?? [...DEFAULTS.workflowGlobs],
    eventHeader: c.get<string>(SETTINGS.eventHeader) || DEFAULTS.eventHeader,
    deliveryHeader: c.get<string>(SETTINGS.deliveryHeader) || DEFAULTS.deliveryHeader,
    refreshInterval: typeof interval === 'number' && Number.isFinite(interval) && interval > 0 ? interval : interval === 0 ? 0 : DEFAULTS.refreshInterval,
  };
}
