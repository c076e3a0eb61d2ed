import type { FleetReportModel } from '../core/fleet/index.js';
import { esc, htmlHead } from './html-escape.js';

/** The fleet report's index: one self-contained page, a row per cluster linking to the cluster's own report. */
export function renderFleetReportHtml(model: FleetReportModel): string {
  const cell = (v: number | undefined, unit = ' s') => (v === undefined ? '—' : `${v}${unit}`);
  const rows = model.rows
    .map(
      (r) =>
        `<tr class="state-${esc(r.state)}"><td>${r.link ? `<a href="${esc(r.link)}">${esc(r.cluster)}</a>` : esc(r.cluster)}</td><td><span class="verdict verdict-${esc(r.state)}">${esc(r.state)}</span>${r.note ? `<div class="note">${esc(r.note)}</div>` : ''}</td><td>${r.stepsTotal ? `${r.stepsVerified}/${r.stepsTotal}` : '—'}</td><td class="${(r.overlapSeconds ?? 0) > 0 ? 'bad' : 'good'}">${cell(r.overlapSeconds)}</td><td>${cell(r.maxGapSeconds)}</td><td>${cell(r.durationSeconds)}</td></tr>`,
    )
    .join('\n');
  const t = model.totals;
  return `${htmlHead(
    model.title,
    `.verdict-completed{background:#dafbe1;color:#116329}.verdict-failed{background:#ffebe9;color:#a40e26}.verdict-in-progress,.verdict-not-started,.verdict-no-migration{background:#fff8c5;color:#7d4e00}.verdict-rolled-back{background:#ddf4ff;color:#0a3069}
.good{color:#116329;font-weight:600}.bad{color:#a40e26;font-weight:600}.note{color:#57606a;margin-top:4px}`,
  )}
<body>
<h1>${esc(model.title)}</h1>
<p>${t.completed} of ${t.clusters} migrated, ${t.failed} failed · largest controller overlap across the fleet: <b class="${t.maxOverlapSeconds > 0 ? 'bad' : 'good'}">${t.maxOverlapSeconds} s</b> · generated ${esc(model.generatedAt)}</p>
<table><thead><tr><th>cluster</th><th>state</th><th>steps verified</th><th>overlap</th><th>largest gap</th><th>duration</th></tr></thead><tbody>
${rows}
</tbody></table>
<p>Overlap: the longest time any migrated controller (route, service, cloud-node-lifecycle) ran in two managers at once (must be 0). Largest gap: the longest time one had no owner. Both are inferred from the lease holders each cluster's journal recorded.</p>
</body></html>
`;
}
