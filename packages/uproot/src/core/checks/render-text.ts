/** The readable preflight report: grouped by status (fail, warn, skip, pass), each problem with its fix. */
import { CHECK_STATUSES, type CheckResult, type CheckStatus, type Fix } from './check-result.js';
import type { PreflightReport } from './preflight-report.js';

const HEADINGS: Record<CheckStatus, string> = { fail: 'FAIL', warn: 'WARN', skip: 'SKIP', pass: 'PASS' };
const MARKS: Record<CheckStatus, string> = { fail: '✗', warn: '!', skip: '-', pass: '✓' };
const MAX_DETAILS = 8;
const MAX_RESOURCES = 10;

export function renderPreflightText(report: PreflightReport): string {
  const t = report.target;
  const lines: string[] = [
    `uproot preflight: ${t.distro} cluster${t.context ? ` "${t.context}"` : ''}${t.server ? ` (${t.server})` : ''}, ` +
      `Kubernetes ${t.kubernetesVersion ?? 'unknown'}${t.targetVersion ? ` → ${t.targetVersion}` : ''}, ` +
      `${t.nodes} node${t.nodes === 1 ? '' : 's'}${t.region ? `, region ${t.region}` : ''}`,
  ];
  if (t.clusterDefinition) lines.push(`cluster definition: ${t.clusterDefinition}`);
  for (const status of CHECK_STATUSES) {
    const group = report.checks.filter((c) => c.status === status);
    if (group.length === 0) continue;
    lines.push('', `${HEADINGS[status]} (${group.length})`);
    for (const check of group) lines.push(...renderCheck(check));
  }
  const s = report.summary;
  lines.push(
    '',
    `Result: ${report.outcome.toUpperCase()}: ${s.fail} failed, ${s.warn} warning${s.warn === 1 ? '' : 's'}, ${s.skip} skipped, ${s.pass} passed`,
    `Requests: ${report.stats.kubernetes.total} to Kubernetes, ${report.stats.aws.total} to AWS in ${(report.stats.durationMs / 1000).toFixed(1)}s (-o json has them by call)`,
  );
  return `${lines.join('\n')}\n`;
}

function renderCheck(check: CheckResult): string[] {
  const out = [
    `  ${MARKS[check.status]} ${check.id}: ${check.status === 'skip' ? check.reason : check.message}`,
  ];
  if (check.status === 'pass' || check.status === 'skip') return out;
  if (check.resources.length > 0) {
    const shown = check.resources
      .slice(0, MAX_RESOURCES)
      .map((r) => `${r.kind}/${r.namespace ? `${r.namespace}/` : ''}${r.name}`);
    const more = check.resources.length - shown.length;
    out.push(`      resources: ${shown.join(', ')}${more > 0 ? ` (+${more} more)` : ''}`);
  }
  for (const d of check.details.slice(0, MAX_DETAILS)) out.push(`      - ${d}`);
  if (check.details.length > MAX_DETAILS)
    out.push(`      - … ${check.details.length - MAX_DETAILS} more (see -o json)`);
  for (const fix of check.fixes) out.push(...renderFix(fix));
  return out;
}

function renderFix(fix: Fix): string[] {
  const out = [`      fix: ${fix.description}`];
  const indent = (text: string, prefix: string) =>
    text
      .trimEnd()
      .split('\n')
      .map((l) => `${prefix}${l}`);
  switch (fix.type) {
    case 'manual':
      for (const step of fix.steps) out.push(`        • ${step}`);
      break;
    case 'config':
      out.push(`        in ${fix.target}:`, ...indent(fix.snippet, '          '));
      for (const c of fix.commands) out.push(...indent(c, '        $ '));
      break;
    default:
      for (const c of fix.commands) out.push(...indent(c, '        $ '));
  }
  return out;
}
