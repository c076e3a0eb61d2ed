import type { CheckResult, PreflightReport } from '../../../packages/uproot/src/core/checks/index.js';

/** The ids of the checks with a status. */
export function idsWith(report: PreflightReport, status: CheckResult['status']): string[] {
  return report.checks.filter((c) => c.status === status).map((c) => c.id);
}

export function check(report: PreflightReport, id: string): CheckResult {
  const found = report.checks.find((c) => c.id === id);
  if (!found) throw new Error(`no check ${id}`);
  return found;
}

export function commandsOf(result: CheckResult): string[] {
  return result.status === 'fail' || result.status === 'warn'
    ? result.fixes.flatMap((f) => ('commands' in f ? f.commands : []))
    : [];
}
