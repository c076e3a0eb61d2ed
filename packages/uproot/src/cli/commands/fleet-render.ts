/**
 * Text tables of the fleet commands: one row per cluster, columns padded to fit. No fleet logic here.
 */
import {
  describeOutcome,
  describeProgress,
  type EngineEvent,
  type FleetStatusRow,
  type JobState,
} from '../../toolkit/documents.js';
import type {
  FleetMigrateResult,
  FleetPreflightResult,
  FleetSnapshotResult,
  FleetStatusReport,
} from '../../toolkit/fleet/index.js';
import { renderEvent } from '../command-kit.js';

export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

export function preflightTable(result: FleetPreflightResult): string {
  const rows = result.rows.map((r) => [
    r.cluster,
    r.distro ?? '—',
    r.kubernetesVersion ?? '—',
    r.type === 'ran' ? r.outcome : 'error',
    r.type === 'ran' ? r.failedChecks.join(', ') || '—' : `${r.code}: ${r.message}`,
  ]);
  const failing = result.rows.filter((r) => r.type !== 'ran' || r.outcome === 'fail').length;
  const summary = `${result.rows.length - failing} of ${result.rows.length} clusters pass preflight${
    failing
      ? `; ${failing} do not (\`uproot preflight --rancher-context ... --cluster NAME\` shows each finding and its fix; a finding the plan fixes itself, such as migration-lease-rbac, does not stop \`fleet migrate\`)`
      : ''
  }.`;
  return `${table(['CLUSTER', 'DISTRO', 'KUBERNETES', 'VERDICT', 'FAILING CHECKS'], rows)}\n${summary}\n`;
}

export function snapshotTable(result: FleetSnapshotResult): string {
  const rows = result.rows.map((r) =>
    r.type === 'written'
      ? [
          r.cluster,
          r.file,
          String(r.nodes),
          String(r.bytes),
          r.unavailable.length > 0 ? `not captured: ${r.unavailable.join(', ')}` : '—',
        ]
      : [r.cluster, '—', '—', '—', `${r.code}: ${r.message}`],
  );
  const written = result.rows.filter((r) => r.type === 'written').length;
  return `${table(['CLUSTER', 'FILE', 'NODES', 'BYTES', 'NOTES'], rows)}\n${written} of ${result.rows.length} clusters written to ${result.outDir}; rehearse one with: uproot sandbox up --scenario ${result.outDir}/<namespace>/<cluster>.yaml\n`;
}

export function migrateTable(result: FleetMigrateResult): string {
  const anyJob = result.rows.some((r) => r.job);
  const rows = result.rows.map((r) => [
    r.cluster,
    describeOutcome(r.outcome),
    ...(anyJob ? [r.job ?? '—'] : []),
  ]);
  return table(['CLUSTER', 'OUTCOME', ...(anyJob ? ['JOB'] : [])], rows);
}

function describeJob(job: JobState): string {
  switch (job.type) {
    case 'none':
      return '—';
    case 'running':
      return job.failedPods ? `running (${job.failedPods} pod(s) failed)` : 'running';
    case 'failed':
      return `failed: ${job.reason}`;
    default:
      return job.type;
  }
}

export function statusTable(report: FleetStatusReport): string {
  const rows = report.rows.map((r: FleetStatusRow) => [
    r.cluster,
    r.verdict,
    describeProgress(r.progress),
    describeJob(r.job),
    r.lockHolder ?? '—',
  ]);
  const counts = Object.entries(report.counts)
    .filter(([, n]) => n > 0)
    .map(([verdict, n]) => `${n} ${verdict}`)
    .join(', ');
  return `${table(['CLUSTER', 'VERDICT', 'STEP', 'JOB', 'LOCK'], rows)}${counts || 'no clusters'} (read ${report.readAt})\n`;
}

/** A cluster's engine events, step by step, prefixed with the cluster (gates and changes are left out). */
export function fleetEventLine(cluster: string, event: EngineEvent): string | undefined {
  if (!['step-started', 'step-verified', 'step-failed', 'manual-action', 'note'].includes(event.type))
    return undefined;
  return renderEvent(event)
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => `[${cluster}] ${l.trim()}\n`)
    .join('');
}
