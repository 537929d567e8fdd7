// Lazy loaders for the heavier modules: nothing here runs during activation.
import type { LintOptions } from '../core/lint';
import type { LintFinding, ServiceClientLike, SignatureExplanation } from './contracts';

export async function createServiceClient(baseUrl: string, token: string | undefined): Promise<ServiceClientLike> {
  const { ServiceClient } = await import('../core/client');
  const client: ServiceClientLike = new ServiceClient({ baseUrl, token });
  return client;
}

export async function loadLinter(): Promise<{
  lintText(text: string, options?: LintOptions): LintFinding[];
  applyFixes(text: string, findings: readonly LintFinding[]): string;
}> {
  const lint = await import('../core/lint');
  return { lintText: (t, o) => lint.lintText(t, o), applyFixes: (t, f) => lint.applyFixes(t, f) };
}

export async function explainSignature(input: { body: string; header: string | undefined; secrets: string[] }): Promise<SignatureExplanation> {
  const doctor = await import('../core/doctor');
  return doctor.explainSignature(input as Parameters<typeof doctor.explainSignature>[0]);
}

export async function loadRelayClient(): Promise<typeof import('../../relay/client')> {
  return import('../../relay/client');
}
