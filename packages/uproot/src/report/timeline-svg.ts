import { controllerRows, controllerRowText, type OwnershipReport } from '../core/ownership/index.js';
import type { ReportStep } from './report-model.js';
import { esc } from './html-escape.js';

const COLORS: Record<string, string> = {
  'kube-controller-manager': '#0969da',
  'cloud-controller-manager': '#1a7f37',
};
const ROW = 34;
const LEFT = 190;
const WIDTH = 1000;

/**
 * One row per logical controller; a bar per owner (blue KCM, green CCM), red where two owned it at once,
 * hatched grey where nobody did; thin vertical lines where steps finished.
 */
export function renderTimelineSvg(report: OwnershipReport, steps: readonly ReportStep[] = []): string {
  // The rows' order (migrated controllers first), as every table of the run lists them.
  const rows = controllerRows(report);
  const names = rows.map((r) => r.name);
  const { from, to } = report.window;
  const span = Math.max(1, to - from);
  const x = (t: number): number => LEFT + ((t - from) / span) * (WIDTH - LEFT - 10);
  const height = 40 + names.length * ROW + 30;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="controller ownership timeline">`,
    `<defs><pattern id="gap" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="3" height="6" fill="#d0d7de"/></pattern></defs>`,
  );
  names.forEach((name, i) => {
    const c = report.controllers[name]!;
    const row = rows[i]!;
    const y = 30 + i * ROW;
    parts.push(`<text x="8" y="${y + 18}" font-size="13" font-family="sans-serif">${esc(name)}</text>`);
    if (row.state !== 'running') {
      parts.push(
        `<text class="${row.state}" data-controller="${esc(name)}" x="${LEFT + 6}" y="${y + 18}" font-size="12" font-family="sans-serif" font-style="italic" fill="#57606a">${esc(controllerRowText(row))}</text>`,
      );
    }
    for (const g of c.gaps) {
      parts.push(
        `<rect class="gap" data-controller="${esc(name)}" x="${x(g.from).toFixed(1)}" y="${y + 4}" width="${Math.max(1, x(g.to) - x(g.from)).toFixed(1)}" height="${ROW - 10}" fill="url(#gap)"><title>no owner ${((g.to - g.from) / 1000).toFixed(1)} s</title></rect>`,
      );
    }
    for (const it of c.intervals) {
      parts.push(
        `<rect class="owner" data-controller="${esc(name)}" data-component="${esc(it.component)}" x="${x(it.from).toFixed(1)}" y="${y + 4}" width="${Math.max(1, x(it.to) - x(it.from)).toFixed(1)}" height="${ROW - 10}" fill="${COLORS[it.component] ?? '#6e7781'}" opacity="0.85"><title>${esc(it.component)} ${esc(it.identity)} (${esc(it.controllerName)})</title></rect>`,
      );
    }
    for (const o of c.overlaps) {
      parts.push(
        `<rect class="overlap" data-controller="${esc(name)}" x="${x(o.from).toFixed(1)}" y="${y}" width="${Math.max(2, x(o.to) - x(o.from)).toFixed(1)}" height="${ROW - 2}" fill="#cf222e"><title>overlap: ${esc(o.identities.join(', '))}</title></rect>`,
      );
    }
  });
  for (const s of steps) {
    if (s.finishedAt === undefined || s.finishedAt < from || s.finishedAt > to) continue;
    const sx = x(s.finishedAt).toFixed(1);
    parts.push(
      `<line x1="${sx}" x2="${sx}" y1="22" y2="${30 + names.length * ROW}" stroke="#8c959f" stroke-dasharray="3,3"><title>${esc(s.id)} done</title></line>`,
    );
  }
  const axisY = 30 + names.length * ROW + 16;
  parts.push(
    `<text x="${LEFT}" y="${axisY}" font-size="11" font-family="sans-serif">${esc(new Date(from).toISOString())}</text>`,
  );
  parts.push(
    `<text x="${WIDTH - 10}" y="${axisY}" font-size="11" font-family="sans-serif" text-anchor="end">${esc(new Date(to).toISOString())} (${((to - from) / 1000).toFixed(0)} s)</text>`,
  );
  parts.push(
    `<g font-size="11" font-family="sans-serif"><rect x="${LEFT}" y="6" width="10" height="10" fill="${COLORS['kube-controller-manager']}"/><text x="${LEFT + 14}" y="15">kube-controller-manager</text><rect x="${LEFT + 170}" y="6" width="10" height="10" fill="${COLORS['cloud-controller-manager']}"/><text x="${LEFT + 184}" y="15">cloud-controller-manager</text><rect x="${LEFT + 350}" y="6" width="10" height="10" fill="#cf222e"/><text x="${LEFT + 364}" y="15">overlap</text><rect x="${LEFT + 420}" y="6" width="10" height="10" fill="url(#gap)"/><text x="${LEFT + 434}" y="15">no owner</text></g>`,
  );
  parts.push('</svg>');
  return parts.join('\n');
}
