// `service-hooks`: the CLI entry. Dispatches to relay/commands/<name>.ts.
import { COMMANDS, findCommand } from './commandTable';
import { EXIT, isUsageError, type CliIO } from './cli/io';
import { redact } from './shared/redact';

const VERSION = '0.1.0';

function topHelp(): string {
  const lines = ['Usage: service-hooks <command> [options]', '', 'Commands:'];
  for (const { name, summary } of COMMANDS) lines.push(`  ${name.padEnd(14)} ${summary}`);
  lines.push('', "Run `service-hooks <command> --help` for a command's options.");
  lines.push('Exit codes: 0 ok, 1 failure or finding, 2 usage error; `relay` exits 3 when another relay holds its --data folder.');
  return lines.join('\n') + '\n';
}

export async function main(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(topHelp());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write(VERSION + '\n');
    return EXIT.ok;
  }
  const entry = findCommand(name);
  if (!entry) {
    io.stderr.write(`service-hooks: unknown command '${redact(name)}'\n\n` + topHelp());
    return EXIT.usage;
  }
  const command = (await entry.load()).default;
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(command.help.endsWith('\n') ? command.help : command.help + '\n');
    return EXIT.ok;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    // A message may quote a flag's value: a --store or --public-url with a password, a --relay URL.
    if (isUsageError(err)) {
      io.stderr.write(`service-hooks ${name}: ${redact(err.message)}\nRun 'service-hooks ${name} --help' for usage.\n`);
      return EXIT.usage;
    }
    io.stderr.write(`service-hooks ${name}: ${redact((err as Error).message ?? String(err))}\n`);
    return EXIT.failure;
  }
}

if (require.main === module) {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  main(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    stopSignal: stop.signal,
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      const text = String((err as Error).stack ?? err);
      process.stderr.write(
        `service-hooks: ${text
          .split('\n')
          .map((line) => redact(line))
          .join('\n')}\n`,
      );
      process.exitCode = EXIT.failure;
    },
  );
}
