// What the relay manager's collaborators (relaySecrets.ts, …) read of the relay in use: live
// values (RelayManager hands out getters over its own fields), never a copy taken earlier.
import type { RelayStatus } from '../../../relay/client';
import type { RelayAddress } from '../../core/tree';
import type { RelayConnection, TokenScope } from './connection';

export interface RelayInUse {
  /** The one connection (undefined: none). */
  readonly conn: RelayConnection | undefined;
  /** The remote relay connected through "Connect to Relay…" (or remembered while offline). */
  readonly remote: RelayAddress | undefined;
  /** The local relay's port while one is in use. */
  readonly localPort: number | undefined;
  /** What the connection's token may do. */
  readonly scope: TokenScope | undefined;
  /** The base URL of the relay in use (RelayManager.relayBase). */
  readonly base: string | undefined;
  /** Its last GET /api/status. */
  readonly status: RelayStatus | undefined;
  /** The relay process started by this window runs. */
  readonly ownsProcess: boolean;
}

/** The base URL of the local relay on `port`. */
export const localBase = (port: number): string => `http://127.0.0.1:${port}`;
