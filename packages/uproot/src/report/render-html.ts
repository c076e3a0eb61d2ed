import { controllerRowText, unwatchedGapText } from '../core/ownership/index.js';
import type { ReportModel } from './report-model.js';
import { renderTimelineSvg } from './timeline-svg.js';
import { esc, htmlHead } from './html-escape.js';

/** A self-contained page (inline CSS and SVG, no scripts, no external resources). */
export function renderReportHtml(model: ReportModel): string {
  const rows = model.steps
    .map(
      (s) =>
        `<tr class="state-${esc(s.state)}"><td><code>${esc(s.id)}</code><br>${esc(s.title)}</td><td>${esc(s.state)}</td><td>${
          s.durationSeconds !== undefined ? `${s.durationSeconds} s` : '—'
        }</td><td>${s.gates.map((g) => `<div class="gate gate-${esc(g.result)}" title="${esc(g.detail)}">${esc(g.type)}: ${esc(g.result)} (${g.seconds} s)</div>`).join('') || '—'}${
          s.failure
            ? `<div class="failure">${esc(s.failure.reason)}<br><b>fix:</b> ${esc(s.failure.fix)}</div>`
            : ''
        }</td></tr>`,
    )
    .join('\n');
  const controllers = model.controllers
    .map((c) =>
      c.state === 'running'
        ? `<tr><td>${esc(c.name)}</td><td class="${c.overlapSeconds > 0 ? 'bad' : 'good'}">${c.overlapSeconds}</td><td>${c.maxGapSeconds}${esc(unwatchedGapText(c))}</td></tr>`
        : `<tr><td>${esc(c.name)}</td><td colspan="2"><span class="${esc(c.state)}">${esc(controllerRowText(c))}</span></td></tr>`,
    )
    .join('\n');
  const versions = model.versions
    .map(
      (v) =>
        `<tr class="state-${esc(v.state)}"><td><code>${esc(v.step)}</code></td><td>${esc(v.version)}</td><td>${esc(v.ccmTag)}</td><td>${esc(v.state)}</td></tr>`,
    )
    .join('\n');
  const lbs = model.loadBalancers
    .map((lb) => `<li>${esc(lb.service)}: <code>${esc(lb.hostnames.join(', ') || '(none)')}</code></li>`)
    .join('');
  return `${htmlHead(
    model.title,
    `.verdict-completed{background:#dafbe1;color:#116329}.verdict-failed{background:#ffebe9;color:#a40e26}.verdict-in-progress,.verdict-not-started{background:#fff8c5;color:#7d4e00}.verdict-rolled-back{background:#ddf4ff;color:#0a3069}
.gate-passed{color:#116329}.gate-failed,.gate-timed-out{color:#a40e26}.failure{margin-top:4px;color:#a40e26}.good{color:#116329;font-weight:600}.bad{color:#a40e26;font-weight:600}
svg{border:1px solid #d0d7de;background:#fff}.not-configured,.not-yet-running{color:#57606a;font-style:italic}`,
  )}
<body>
<h1>${esc(model.title)}</h1>
<p><span class="verdict verdict-${esc(model.verdict)}">${esc(model.verdict)}</span>
${esc(model.cluster.distro)} · Kubernetes ${esc(model.kubernetes.current)} → ${esc(model.kubernetes.target)} · CCM <code>${esc(model.ccmImage)}</code> · generated ${esc(model.generatedAt)}</p>
<h2>Who ran each controller</h2>
${model.ownership ? renderTimelineSvg(model.ownership, model.steps) : '<p>No ownership timeline was recorded.</p>'}
${controllers ? `<table><thead><tr><th>controller</th><th>overlap (s)</th><th>largest gap (s)</th></tr></thead><tbody>${controllers}</tbody></table>` : ''}
${versions ? `<h2>Kubernetes versions</h2>\n<p>From ${esc(model.kubernetes.current)}, one minor per step:</p>\n<table><thead><tr><th>step</th><th>Kubernetes</th><th>CCM</th><th>state</th></tr></thead><tbody>\n${versions}\n</tbody></table>` : ''}
<h2>Steps</h2>
<table><thead><tr><th>step</th><th>state</th><th>duration</th><th>gates</th></tr></thead><tbody>
${rows}
</tbody></table>
${lbs ? `<h2>LoadBalancer Services kept</h2><ul>${lbs}</ul>` : ''}
</body></html>
`;
}
