/**
 * The aws-cloud-controller-manager as installed (a DaemonSet, a static pod) or as planned (an RKE2 HelmChart,
 * in the cluster or in the cluster definition's additionalManifest), reduced to what the checks judge. Chart
 * values are merged over the chart's defaults the way Helm merges them: maps merge key by key (so a user's
 * nodeSelector *adds* to the default `node-role.kubernetes.io/control-plane: ""` unless that key is
 * overridden or set to null), lists replace.
 */
import { parseAllDocuments } from 'yaml';
import type { DaemonSetFacts, HelmChartFacts, KubeSnapshot, PolicyRule } from '../model/snapshot.js';
import type { ClusterDefinition } from '../model/cluster-definition.js';
import type { Toleration } from '../model/taint.js';
import { CCM_CHART, CCM_CHART_DEFAULT_VALUES } from './chart-defaults.js';

export const CCM_NAMESPACE = CCM_CHART_DEFAULT_VALUES.namespace;
export const CCM_SERVICE_ACCOUNT = CCM_CHART_DEFAULT_VALUES.serviceAccountName;

/** The chart defaults the checks judge (from the core's single copy of values.yaml). */
export const CHART_DEFAULTS = {
  image: { ...CCM_CHART_DEFAULT_VALUES.image },
  args: [...CCM_CHART_DEFAULT_VALUES.args],
  nodeSelector: { ...CCM_CHART_DEFAULT_VALUES.nodeSelector } as Record<string, string>,
  tolerations: CCM_CHART_DEFAULT_VALUES.tolerations.map((t) => ({ ...t })) as Toleration[],
  hostNetworking: CCM_CHART_DEFAULT_VALUES.hostNetworking,
  clusterRoleRules: structuredClone(CCM_CHART_DEFAULT_VALUES.clusterRoleRules) as unknown as PolicyRule[],
};

export interface CcmDeployment {
  /** daemonset: running in the cluster; helmchart: an RKE2 HelmChart object; planned: in the cluster definition. */
  readonly kind: 'daemonset' | 'static-pod' | 'helmchart' | 'planned';
  readonly source: string;
  readonly image?: string;
  readonly args: readonly string[];
  readonly nodeSelector: Readonly<Record<string, string>>;
  readonly tolerations: readonly Toleration[];
  readonly hostNetwork: boolean;
  /** From chart values (HelmChart / planned); undefined for a DaemonSet, whose RBAC is asked of the API. */
  readonly clusterRoleRules?: readonly PolicyRule[];
}

export function isCcmDaemonSet(ds: DaemonSetFacts): boolean {
  return (
    ds.name === CCM_CHART.chart ||
    ds.containers.some((c) => c.image.includes('provider-aws/cloud-controller-manager'))
  );
}

/** Every CCM the snapshot shows, installed ones first. */
export function findCcmDeployments(kube: KubeSnapshot, definition?: ClusterDefinition): CcmDeployment[] {
  const found: CcmDeployment[] = [];
  if (kube.daemonSets.state === 'ok') {
    for (const ds of kube.daemonSets.value.filter(isCcmDaemonSet)) {
      const container =
        ds.containers.find((c) => c.image.includes('cloud-controller-manager')) ?? ds.containers[0];
      found.push({
        kind: 'daemonset',
        source: `DaemonSet ${ds.namespace}/${ds.name}`,
        ...(container ? { image: container.image } : {}),
        args: container?.args ?? [],
        nodeSelector: ds.nodeSelector,
        tolerations: ds.tolerations,
        hostNetwork: ds.hostNetwork,
      });
    }
  }
  if (kube.componentPods.state === 'ok') {
    for (const pod of kube.componentPods.value.filter((p) => p.component === 'cloud-controller-manager')) {
      found.push({
        kind: 'static-pod',
        source: `pod ${pod.namespace}/${pod.name}`,
        ...(pod.image ? { image: pod.image } : {}),
        args: pod.args,
        nodeSelector: {},
        tolerations: [{ operator: 'Exists' }],
        hostNetwork: true,
      });
    }
  }
  if (kube.helmCharts.state === 'ok') {
    for (const chart of kube.helmCharts.value.filter((c) => c.chart === CCM_CHART.chart)) {
      found.push(
        fromChartValues('helmchart', `HelmChart ${chart.namespace}/${chart.name}`, chart.valuesContent),
      );
    }
  }
  if (definition?.distro === 'rke2' && definition.additionalManifest) {
    for (const chart of helmChartsInManifest(definition.additionalManifest)) {
      if (chart.chart === CCM_CHART.chart) {
        found.push(
          fromChartValues(
            'planned',
            `${definition.source} additionalManifest HelmChart ${chart.name}`,
            chart.valuesContent,
          ),
        );
      }
    }
  }
  return found;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The effective DaemonSet settings of the chart for `valuesContent` (YAML) over the chart's defaults. */
export function fromChartValues(
  kind: CcmDeployment['kind'],
  source: string,
  valuesContent?: string,
): CcmDeployment {
  let values: Obj = {};
  try {
    const doc = parseAllDocuments(valuesContent ?? '')[0]?.toJS() as unknown;
    if (isObj(doc)) values = doc;
  } catch {
    // unparseable values: judged as chart defaults; helm-controller would fail to install it anyway
  }
  const image = isObj(values.image) ? values.image : {};
  const nodeSelector: Record<string, string> = { ...CHART_DEFAULTS.nodeSelector };
  if (values.nodeSelector === null) for (const k of Object.keys(nodeSelector)) delete nodeSelector[k];
  if (isObj(values.nodeSelector)) {
    for (const [k, v] of Object.entries(values.nodeSelector)) {
      if (v === null) delete nodeSelector[k];
      else nodeSelector[k] = String(v);
    }
  }
  return {
    kind,
    source,
    image: `${String(image.repository ?? CHART_DEFAULTS.image.repository)}:${String(image.tag ?? CHART_DEFAULTS.image.tag)}`,
    args: Array.isArray(values.args) ? values.args.map(String) : CHART_DEFAULTS.args,
    nodeSelector,
    tolerations: Array.isArray(values.tolerations)
      ? values.tolerations.filter(isObj).map(toToleration)
      : CHART_DEFAULTS.tolerations,
    hostNetwork: values.hostNetworking === true,
    clusterRoleRules: Array.isArray(values.clusterRoleRules)
      ? values.clusterRoleRules.filter(isObj).map(toRule)
      : CHART_DEFAULTS.clusterRoleRules,
  };
}

function toToleration(t: Obj): Toleration {
  const out: { -readonly [K in keyof Toleration]: Toleration[K] } = {};
  if (t.key !== undefined) out.key = String(t.key);
  if (t.operator !== undefined) out.operator = String(t.operator);
  if (t.value !== undefined) out.value = String(t.value);
  if (t.effect !== undefined) out.effect = String(t.effect);
  return out;
}

function toRule(r: Obj): PolicyRule {
  const list = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);
  return {
    apiGroups: list(r.apiGroups),
    resources: list(r.resources),
    verbs: list(r.verbs),
    ...(Array.isArray(r.resourceNames) ? { resourceNames: list(r.resourceNames) } : {}),
  };
}

/** HelmChart objects in a multi-document manifest (RKE2's additionalManifest). */
export function helmChartsInManifest(manifest: string): HelmChartFacts[] {
  const charts: HelmChartFacts[] = [];
  let docs: unknown[] = [];
  try {
    docs = parseAllDocuments(manifest).map((d) => d.toJS() as unknown);
  } catch {
    return charts;
  }
  for (const doc of docs) {
    if (!isObj(doc) || doc.kind !== 'HelmChart') continue;
    const meta = isObj(doc.metadata) ? doc.metadata : {};
    const spec = isObj(doc.spec) ? doc.spec : {};
    charts.push({
      namespace: String(meta.namespace ?? 'kube-system'),
      name: String(meta.name ?? ''),
      chart: String(spec.chart ?? ''),
      ...(typeof spec.repo === 'string' ? { repo: spec.repo } : {}),
      ...(typeof spec.version === 'string' ? { version: spec.version } : {}),
      ...(typeof spec.valuesContent === 'string' ? { valuesContent: spec.valuesContent } : {}),
    });
  }
  return charts;
}

/**
 * The nodeSelector uproot recommends per distribution (seed 004). Tolerations are derived from the nodes'
 * live taints instead: seed 004's `value: 'true'` ones do not tolerate Rancher's valueless RKE2 taints.
 */
export function recommendedPlacement(distro: string): { nodeSelector: Record<string, string> } {
  const roleKey =
    distro === 'rke' ? 'node-role.kubernetes.io/controlplane' : 'node-role.kubernetes.io/control-plane';
  const roleValue = distro === 'rke' || distro === 'rke2' ? 'true' : '';
  return { nodeSelector: { [roleKey]: roleValue } };
}
