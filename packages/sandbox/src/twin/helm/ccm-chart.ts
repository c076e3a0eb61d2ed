import type { KubeObject } from '../kube/kube-types.js';
import { CCM_CHART_NAME, CCM_CHART_VERSION, ccmChartDefaultValues } from 'uproot/core';

/**
 * The aws-cloud-controller-manager Helm chart (kubernetes/cloud-provider-aws charts/, chart 0.0.11, app
 * v1.35.0) rendered in TypeScript: values.yaml defaults, Helm's value merge (maps merge, lists and scalars
 * replace), and the templates serviceaccount, clusterrole, cluserrolebinding, rolebinding and daemonset.
 */

export { CCM_CHART_NAME, CCM_CHART_VERSION };

type Values = Record<string, unknown>;

/** values.yaml of the chart (the fields the templates read), from the core's single copy. */
export function ccmChartDefaults(): Values {
  return ccmChartDefaultValues();
}

function isMap(v: unknown): v is Values {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Helm's coalesce: user maps merge into defaults key by key; anything else replaces; null deletes. */
export function mergeValues(defaults: Values, overrides: Values): Values {
  const out: Values = { ...defaults };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === null) delete out[key];
    else if (isMap(value) && isMap(out[key])) out[key] = mergeValues(out[key], value);
    else out[key] = value;
  }
  return out;
}

function str(v: unknown, fallback: string): string {
  return typeof v === 'string' || typeof v === 'number' ? String(v) : fallback;
}

/** Helm's truthiness for `{{ if }}`: empty strings, false, 0, nil and empty collections are false. */
function truthy(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isMap(v)) return Object.keys(v).length > 0;
  return true;
}

export interface RenderedChart {
  readonly values: Values;
  readonly objects: KubeObject[];
}

/** Renders the chart for a release with the user's values (a HelmChart's parsed valuesContent). */
export function renderCcmChart(
  userValues: Values,
  release = { name: CCM_CHART_NAME, service: 'Helm' },
): RenderedChart {
  const values = mergeValues(ccmChartDefaults(), userValues);
  const name = str(values.nameOverride, CCM_CHART_NAME);
  const namespace = str(values.namespace, 'kube-system');
  const chartLabel = `${CCM_CHART_NAME}-${CCM_CHART_VERSION}`;
  const saName = str(values.serviceAccountName, 'cloud-controller-manager');
  const labels = {
    'helm.sh/chart': chartLabel,
    'app.kubernetes.io/name': name,
    'app.kubernetes.io/managed-by': release.service,
    'app.kubernetes.io/instance': release.name,
  };
  const image = isMap(values.image) ? values.image : {};
  const args = Array.isArray(values.args) ? values.args.map((a) => String(a)) : [];
  const container: Values = {
    name: CCM_CHART_NAME,
    image: `${str(image.repository, '')}:${str(image.tag, '')}`,
    args,
    resources: values.resources ?? {},
    env: values.env ?? [],
    securityContext: values.securityContext ?? {},
  };
  if (truthy(values.extraVolumeMounts)) container.volumeMounts = values.extraVolumeMounts;
  const podSpec: Values = {
    tolerations: values.tolerations ?? [],
    nodeSelector: values.nodeSelector ?? {},
    dnsPolicy: str(values.dnsPolicy, 'Default'),
    priorityClassName: 'system-node-critical',
    serviceAccountName: saName,
    securityContext: values.podSecurityContext ?? {},
    containers: [container],
  };
  if (truthy(values.hostNetworking)) podSpec.hostNetwork = true;
  if (truthy(values.extraVolumes)) podSpec.volumes = values.extraVolumes;
  const templateMeta: Values = { name, labels: { 'k8s-app': name } };
  if (truthy(values.podAnnotations)) templateMeta.annotations = values.podAnnotations;
  const objects: KubeObject[] = [
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: saName, namespace, labels },
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: str(values.clusterRoleName, 'system:cloud-controller-manager'), labels },
      rules: values.clusterRoleRules ?? [],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: str(values.clusterRoleName, 'system:cloud-controller-manager'), labels },
      roleRef: {
        kind: 'ClusterRole',
        name: str(values.clusterRoleName, 'system:cloud-controller-manager'),
        apiGroup: 'rbac.authorization.k8s.io',
      },
      subjects: [{ apiGroup: '', kind: 'ServiceAccount', name: saName, namespace }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: {
        name: str(values.roleBindingName, 'cloud-controller-manager:apiserver-authentication-reader'),
        namespace,
        labels,
      },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'Role',
        name: str(values.roleName, 'extension-apiserver-authentication-reader'),
      },
      subjects: [{ apiGroup: '', kind: 'ServiceAccount', name: saName, namespace }],
    },
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name, namespace, labels: { 'k8s-app': name, 'helm.sh/chart': chartLabel } },
      spec: {
        selector: { matchLabels: { 'k8s-app': name } },
        updateStrategy: { type: 'RollingUpdate' },
        template: { metadata: templateMeta, spec: podSpec },
      },
    },
  ];
  return { values, objects };
}
