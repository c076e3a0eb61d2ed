import type { ReportModel } from './report-model.js';
import { controllerRowText, unwatchedGapText } from '../core/ownership/index.js';

export function renderReportMarkdown(model: ReportModel): string {
  const lines: string[] = [];
  lines.push(`# ${model.title}`, '');
  lines.push(`- Verdict: **${model.verdict}**`);
  lines.push(
    `- Distribution: ${model.cluster.distro}; Kubernetes ${model.kubernetes.current} → ${model.kubernetes.target}`,
  );
  lines.push(`- Cloud controller manager: \`${model.ccmImage}\``);
  lines.push(`- Generated: ${model.generatedAt}`, '');
  if (model.versions.length > 0) {
    lines.push(
      '## Kubernetes versions',
      '',
      `From ${model.kubernetes.current}, one minor per step:`,
      '',
      '| step | Kubernetes | CCM | state |',
      '| --- | --- | --- | --- |',
    );
    for (const v of model.versions) lines.push(`| ${v.step} | ${v.version} | ${v.ccmTag} | ${v.state} |`);
    lines.push('');
  }
  lines.push('## Steps', '', '| step | state | duration | gates |', '| --- | --- | --- | --- |');
  for (const s of model.steps) {
    const gates = s.gates.map((g) => `${g.type}: ${g.result} (${g.seconds} s)`).join('<br>') || '—';
    lines.push(
      `| ${s.id} — ${escape(s.title)} | ${s.state} | ${s.durationSeconds !== undefined ? `${s.durationSeconds} s` : '—'} | ${escape(gates)} |`,
    );
  }
  const failed = model.steps.filter((s) => s.failure);
  if (failed.length > 0) {
    lines.push('', '## Failures', '');
    for (const s of failed) lines.push(`- **${s.id}**: ${s.failure!.reason}`, `  - fix: ${s.failure!.fix}`);
  }
  if (model.controllers.length > 0) {
    lines.push(
      '',
      '## Controller ownership',
      '',
      '| controller | overlap (s) | largest gap (s) |',
      '| --- | --- | --- |',
    );
    for (const c of model.controllers)
      lines.push(
        c.state === 'running'
          ? `| ${c.name} | ${c.overlapSeconds} | ${c.maxGapSeconds}${unwatchedGapText(c)} |`
          : `| ${c.name} | ${controllerRowText(c)} | — |`,
      );
  }
  if (model.loadBalancers.length > 0) {
    lines.push('', '## LoadBalancer Services kept', '');
    for (const lb of model.loadBalancers)
      lines.push(`- ${lb.service}: ${lb.hostnames.join(', ') || '(no hostname)'}`);
  }
  return `${lines.join('\n')}\n`;
}

function escape(s: string): string {
  return s.replace(/\|/g, '\\|');
}
