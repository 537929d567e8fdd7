// `verify --explain` as a helper the verify command can call: runs the signature doctor and prints
// its findings. Returns an exit code: 0 when the signature matches as-is, 1 otherwise.
import { explainSignature, type SignatureExplanation } from '../../src/core/doctor';

export interface ExplainArgs {
  body: Uint8Array | string;
  header: string | undefined;
  secrets: string[];
}

export function runExplain(args: ExplainArgs, io: { stdout: NodeJS.WritableStream }): { code: number; result: SignatureExplanation } {
  const result = explainSignature({ body: args.body, header: args.header, secrets: args.secrets });
  io.stdout.write(result.ok ? 'signature OK\n' : 'signature does not match\n');
  for (const f of result.findings) io.stdout.write(`  - ${f}\n`);
  return { code: result.ok ? 0 : 1, result };
}
