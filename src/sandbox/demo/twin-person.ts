/**
 * The person at the demo's terminal, for the steps uproot leaves to one: on an RKE twin without
 * helm-controller, installing and later reconfiguring the CCM chart is `helm upgrade --install` with one of
 * the plan's values files. The demo does exactly that against the twin (the twin's rendering of the chart
 * with those values), then resumes with --manual-done, as a person would.
 */
import { parse } from 'yaml';
import type { MigrationPlan } from '../../core/plan/plan-types.js';
import { InternalError } from '../../errors/index.js';
import { ManifestApplier } from '../twin/helm/manifest-applier.js';
import { CCM_CHART_NAME, renderCcmChart, type Twin } from '../twin/index.js';

const HELM_UPGRADE = /helm upgrade --install \S+ \S+ -n (\S+) --values (\S+)/;

/**
 * Does a manual step's instructions on the twin when they are a helm install of the CCM chart with one of
 * the plan's values files; returns what was done, or undefined when the demo has no hand for them.
 */
export function actAsPerson(twin: Twin, plan: MigrationPlan, instructions: string): string | undefined {
  const match = HELM_UPGRADE.exec(instructions);
  if (!match) return undefined;
  const [, namespace = 'kube-system', valuesPath = ''] = match;
  const artifact = plan.artifacts.find((a) => a.path === valuesPath);
  if (!artifact) return undefined;
  const values = parse(artifact.content) as Record<string, unknown>;
  const chart = renderCcmChart(values, { name: CCM_CHART_NAME, service: 'Helm' });
  const result = new ManifestApplier(twin.kube).apply(`helm:${CCM_CHART_NAME}`, chart.objects, namespace);
  if (result.errors.length > 0) {
    throw new InternalError(`installing the CCM chart on the twin failed: ${result.errors.join('; ')}`);
  }
  return `helm upgrade --install ${CCM_CHART_NAME} -n ${namespace} --values ${valuesPath} (${chart.objects.length} objects)`;
}
