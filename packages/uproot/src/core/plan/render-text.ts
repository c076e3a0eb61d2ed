/** `uproot plan -o text`: a readable summary (steps, changes with their diffs, gates, findings). */
import type { Change, MigrationPlan } from '../model/plan-types.js';
import { journeyLine } from './journey-text.js';
import { renderGate } from './runbook.js';

function indent(text: string, pad = '      '): string {
  return text
    .trimEnd()
    .split('\n')
    .map((l) => (l === '' ? '' : pad + l))
    .join('\n');
}

function changeSummary(change: Change): string {
  switch (change.type) {
    case 'edit-cluster-definition':
      return `edit ${'file' in change.target ? change.target.file : `${change.target.kind} ${change.target.namespace ? `${change.target.namespace}/` : ''}${change.target.name}`}: ${change.description}`;
    case 'write-file':
      return `write ${change.path}: ${change.description}`;
    case 'delete-file':
      return `delete ${change.path}: ${change.description}`;
    case 'patch-object':
      return `patch ${change.target.kind} ${change.target.name} (${change.patchType}): ${change.description}`;
    case 'apply-object':
      return `apply ${String(change.object.kind)} ${String((change.object.metadata as { name?: string } | undefined)?.name ?? '')}: ${change.description}`;
    case 'cordon-nodes':
      return `kubectl cordon -l "${change.selector}"`;
    case 'uncordon-nodes':
      return `kubectl uncordon -l "${change.selector}"`;
    case 'manual':
      return `manual: ${change.description}\n${indent(change.instructions, '        ')}`;
  }
}

/**
 * `outHint`: whether the command that prints it takes `--out DIR` (plan does; migrate --dry-run does not, and a
 * hint must work as printed).
 */
export function renderPlanText(
  plan: MigrationPlan,
  options: { diffs?: boolean; outHint?: boolean } = {},
): string {
  const showDiffs = options.diffs ?? true;
  const out: string[] = [
    `uproot plan: ${plan.cluster.name} (${plan.distro}) from ${plan.cluster.source}`,
    `  Kubernetes ${plan.kubernetes.current}${plan.kubernetes.target !== plan.kubernetes.current ? ` → ${plan.kubernetes.target}` : ' (same version)'}`,
  ];
  const journey = journeyLine(plan);
  if (journey) out.push(`  ${journey}`);
  if (plan.outcome.type === 'nothing-to-do') {
    out.push('', `Nothing to do: ${plan.outcome.reason}.`);
    for (const f of plan.findings) out.push(`  ${f.severity}: ${f.message}`);
    return `${out.join('\n')}\n`;
  }
  out.push(
    `  CCM ${plan.ccm.image}${plan.ccm.targetTag !== plan.ccm.installTag ? ` → ${plan.ccm.targetTag}` : ''}, leader-migration configuration: ${plan.ccm.leaderMigrationConfig}`,
    '',
  );
  plan.steps.forEach((step, i) => {
    out.push(`${i + 1}. ${step.title} [${step.id}]${step.optional ? ' (optional)' : ''}`);
    for (const change of step.changes) {
      out.push(`   - ${changeSummary(change)}`);
      if (showDiffs && 'diff' in change && change.diff) out.push(indent(change.diff));
    }
    for (const gate of step.gates) out.push(`   ✓ ${renderGate(gate)}`);
    out.push(`   ↶ undo: ${step.undo.description}`, '');
  });
  if (plan.findings.length > 0) {
    out.push('Findings:');
    for (const f of plan.findings)
      out.push(`  ${f.severity}: [${f.code}] ${f.message}${f.hint ? `\n    hint: ${f.hint}` : ''}`);
    out.push('');
  }
  out.push(
    (options.outHint ?? true)
      ? `${plan.artifacts.length} artifact(s); write them with --out DIR.`
      : `${plan.artifacts.length} artifact(s).`,
  );
  return `${out.join('\n')}\n`;
}
