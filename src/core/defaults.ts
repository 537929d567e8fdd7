// Defaults shared by the CLI, the relay, the emulator and the extension: one home for each.
// (scripts/*.mjs cannot import TypeScript; they read the same values from src/core/defaults.json.)
import defaults from './defaults.json';

/** The service emulator's port: the extension's default base URL points at it. */
export const DEFAULT_SERVICE_PORT: number = defaults.servicePort;
/** The local relay's port. */
export const DEFAULT_RELAY_PORT: number = defaults.relayPort;
/** The local relay's address: the CLI's default --relay. */
export const DEFAULT_RELAY_URL = `http://127.0.0.1:${DEFAULT_RELAY_PORT}`;
/** The extension's default `serviceHooks.baseUrl`: the local emulator. */
export const DEFAULT_BASE_URL = `http://127.0.0.1:${DEFAULT_SERVICE_PORT}`;
/** The secret of the demo's relay webhook (`emulate --demo`, `npm start`); never for real use. */
export const DEMO_SECRET: string = defaults.demoSecret;
/**
 * The service's delivery schedule (spec §8): the first attempt at once, then retries 1, 5 and
 * 30 minutes after the previous attempt. The emulator delivers on it; the relay forwards on it.
 */
export const RETRY_SCHEDULE_MS: readonly number[] = Object.freeze([...defaults.retryScheduleMs]);
/** What the relay keeps unless --keep / --max-age say otherwise: 100,000 deliveries for 30 days. */
export const RELAY_RETENTION: Readonly<{ maxCount: number; maxAgeMs: number }> = Object.freeze({ maxCount: 100_000, maxAgeMs: 30 * 24 * 3_600_000 });
