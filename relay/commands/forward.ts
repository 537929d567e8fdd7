// Placeholder: implemented by its own issue.
import type { Command } from '../cli/io';

const command: Command = {
  summary: '(not yet available)',
  help: 'Usage: service-hooks forward\n\nNot yet available in this build.',
  async run(_argv, io) {
    io.stderr.write('service-hooks forward: not yet available in this build\n');
    return 1;
  },
};
export default command;
