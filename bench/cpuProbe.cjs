// Preloaded (`node -r bench/cpuProbe.cjs …`) into the processes bench/lintProcesses.ts spawns: at exit
// it writes the process's CPU time (user + system, all threads, in ms) to fd 3, a figure that a busy
// machine inflates less than wall time.
'use strict';
process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  try {
    require('node:fs').writeSync(3, JSON.stringify({ cpuMs: (user + system) / 1000 }));
  } catch {
    // fd 3 is not open: run by hand
  }
});
