// Self-hosted runner set-up (spec §5): the commands the editor types into a terminal.

/** Self-hosted runner commands (spec §5). The token is read from the environment, never echoed. */
export function runnerCommands(baseUrl: string, tokenEnvVar = 'SERVICE_RUNNER_TOKEN'): string[] {
  const base = baseUrl.replace(/\/+$/, '');
  return [
    `curl -fsSL ${shq(`${base}/runner/install.sh`)} | sh`,
    `runner configure --url ${shq(base)} --token "$${tokenEnvVar}"`,
    `runner run`,
  ];
}

function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
