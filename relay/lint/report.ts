// `service-hooks lint --report`: the port report (src/core/lint/report.ts) with links that work
// from the working directory (relative, percent-encoded, `#L<line>`) or file:// URIs outside it.
import { portReport, type ReportFile, type RenameRule } from '../../src/core/lint';
import { artifactLocation } from './sarif';

export function formatReport(files: readonly ReportFile[], rules: readonly RenameRule[], cwd: string): string {
  return portReport(files, {
    rules,
    link: (file, line) => `${artifactLocation(file, cwd).uri}#L${line}`,
    fixWith: '`service-hooks lint --fix`',
    suggestWith: '`service-hooks lint --fix-pinned`',
  });
}
