/**
 * `uproot fleet report --out DIR`: each selected cluster's own report (the report toolkit over the journal
 * kept beside its Cluster in Rancher's local cluster) as DIR/<namespace>/<cluster>.html, and DIR/index.html,
 * one self-contained page with a row per cluster (state, steps, overlap, largest gap, duration) linking to
 * them. Reads only the local cluster.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fleetReportModel, type FleetReportModel, type FleetReportRowInput } from '../../core/fleet/index.js';
import { renderFleetReportHtml } from '../../report/index.js';
import type { RunHost } from '../session/run-settings.js';
import { report } from '../report.js';
import { errorRow, openFleet, type FleetDeps, type FleetTargets } from './fleet-session.js';
import { readJournal } from './fleet-status.js';

export interface FleetReportOptions extends FleetTargets {
  readonly out: string;
}

export interface FleetReportResult {
  readonly index: string;
  readonly model: FleetReportModel;
}

export async function fleetReport(
  options: FleetReportOptions,
  host: RunHost,
  deps: FleetDeps = {},
): Promise<FleetReportResult> {
  const session = await openFleet(options, host, deps);
  const out = resolve(host.cwd, options.out);
  const now = session.clock.now();
  const rows: FleetReportRowInput[] = [];
  for (const member of session.members) {
    const base = { cluster: member.key, stepsVerified: 0, stepsTotal: 0, controllers: [] };
    let journal;
    try {
      journal = await readJournal(session.rancher.objects, member);
    } catch (error) {
      rows.push({ ...base, state: 'unreadable', note: errorRow(error).message });
      continue;
    }
    if (!journal) {
      rows.push({ ...base, state: 'no-migration' });
      continue;
    }
    const link = `${member.cluster.namespace}/${member.cluster.name}.html`;
    const { text, model } = await report({ fromJournal: journal, format: 'html', now, cwd: host.cwd });
    mkdirSync(dirname(join(out, link)), { recursive: true });
    writeFileSync(join(out, link), text);
    const finished = model.steps.flatMap((s) => (s.finishedAt !== undefined ? [s.finishedAt] : []));
    rows.push({
      cluster: member.key,
      state: model.verdict,
      stepsVerified: model.steps.filter((s) => s.state === 'verified').length,
      stepsTotal: model.steps.length,
      controllers: model.controllers,
      startedAt: Date.parse(journal.createdAt),
      ...(finished.length ? { finishedAt: Math.max(...finished) } : {}),
      link,
    });
  }
  const model = fleetReportModel(rows, now);
  mkdirSync(out, { recursive: true });
  const index = join(out, 'index.html');
  writeFileSync(index, renderFleetReportHtml(model));
  return { index, model };
}
