import { COMMANDS } from '../ids';
import { log } from '../log';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.showLogs,
  run() {
    log().show(true);
    return { shown: true };
  },
};
export default command;
