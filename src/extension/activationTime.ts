// How long activate() took: recorded by activate.ts, read by the Show Activation Time command.
// A module of its own so the command does not import activate.ts (which imports the commands).
let activationTime = 0;

export function recordActivationTime(ms: number): void {
  activationTime = ms;
}

export function activationMs(): number {
  return activationTime;
}
