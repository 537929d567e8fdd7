// Lazy loaders for the heavier modules: nothing here runs during activation.
import type { ExplainInput } from '../core/doctor';
import type { ExtraRule, LintOptions, RenameRule, ReportFile, ReportOptions, ReportSummary } from '../core/lint';
import type { LintFinding, ServiceClientLike, SignatureExplanation } from './contracts';

export async function createServiceClient(baseUrl: string, token: string | undefined): Promise<ServiceClientLike> {
  const { ServiceClient } = await import('../core/client');
  const client: ServiceClientLike = new ServiceClient({ baseUrl, token });
  return client;
}

export async function loadLinter(): Promise<{
  lintText(text: string, options?: LintOptions): LintFinding[];
  applyFixes(text: string, findings: readonly LintFinding[]): string;
  /** The findings whose edit (fix or suggestion) would leave a file that does not parse. */
  refusedFixes(text: string, findings: readonly LintFinding[]): LintFinding[];
  fixTitle(replacement: string): string;
  reportHtml(markdown: string): string;
  portReport(files: readonly ReportFile[], options: ReportOptions): string;
  summarize(files: readonly ReportFile[]): ReportSummary;
  ruleTable(extra?: readonly ExtraRule[]): RenameRule[];
}> {
  const lint = await import('../core/lint');
  return {
    lintText: (t, o) => lint.lintText(t, o),
    applyFixes: (t, f) => lint.applyFixes(t, f),
    refusedFixes: (t, f) => lint.applyFixesChecked(t, f, { suggestions: true }).refused,
    fixTitle: (r) => lint.fixTitle(r),
    reportHtml: (m) => lint.reportHtml(m),
    portReport: (f, o) => lint.portReport(f, o),
    summarize: (f) => lint.summarize(f),
    ruleTable: (e) => lint.ruleTable(e),
  };
}

/** The signature doctor on the body's exact bytes (a string is taken as its UTF-8 encoding). */
export async function explainSignature(input: ExplainInput): Promise<SignatureExplanation> {
  const doctor = await import('../core/doctor');
  return doctor.explainSignature(input);
}

export async function loadRelayClient(): Promise<typeof import('../../relay/client')> {
  return import('../../relay/client');
}
