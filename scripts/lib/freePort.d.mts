// Types of freePort.mjs for the TypeScript tests and benches that import it.
export function freePort(): Promise<number>;
