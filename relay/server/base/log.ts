// The relay's logging seam: a message and, where they apply, fields a machine can read. The CLI
// turns them into text (the default) or one JSON object per line (relay/cli/relayLog.ts).

export type LogLevel = 'info' | 'warn' | 'error';

export interface LogFields {
  level?: LogLevel;
  seq?: number;
  channel?: string;
  target?: string;
  /** An HTTP status (of a request, or of a forward target's answer). */
  status?: number;
  durationMs?: number;
}

/** Operational log lines; never given a token or a secret (the CLI's writer redacts them anyway). */
export type RelayLog = (message: string, fields?: LogFields) => void;
