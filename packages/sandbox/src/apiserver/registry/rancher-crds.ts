import type { KubeObject } from '../kube-object.js';

const OPEN_SCHEMA = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };

function crd(
  group: string,
  version: string,
  kind: string,
  plural: string,
  scope: 'Namespaced' | 'Cluster',
  columns: { name: string; type: string; jsonPath: string; priority?: number }[] = [],
  shortNames: string[] = [],
): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope,
      names: {
        kind,
        plural,
        singular: kind.toLowerCase(),
        listKind: `${kind}List`,
        ...(shortNames.length ? { shortNames } : {}),
      },
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: OPEN_SCHEMA,
          ...(columns.length ? { additionalPrinterColumns: columns } : {}),
        },
      ],
    },
  };
}

/**
 * The CRDs a Rancher-managed RKE2/RKE cluster has that uproot reads or writes. Printer columns approximate
 * Rancher's (`kubectl get clusters.provisioning.cattle.io -A` shows READY and KUBECONFIG).
 */
export function rancherCrds(): KubeObject[] {
  return [
    crd('provisioning.cattle.io', 'v1', 'Cluster', 'clusters', 'Namespaced', [
      { name: 'Ready', type: 'string', jsonPath: '.status.ready' },
      { name: 'Kubeconfig', type: 'string', jsonPath: '.status.clientSecretName' },
    ]),
    crd('management.cattle.io', 'v3', 'Cluster', 'clusters', 'Cluster'),
    // Rancher's settings (server-version, ...): cluster-scoped, the value at the top level.
    crd('management.cattle.io', 'v3', 'Setting', 'settings', 'Cluster', [
      { name: 'Value', type: 'string', jsonPath: '.value' },
    ]),
    crd('helm.cattle.io', 'v1', 'HelmChart', 'helmcharts', 'Namespaced', [
      { name: 'Job', type: 'string', jsonPath: '.status.jobName' },
      { name: 'Chart', type: 'string', jsonPath: '.spec.chart' },
      { name: 'TargetNamespace', type: 'string', jsonPath: '.spec.targetNamespace' },
      { name: 'Version', type: 'string', jsonPath: '.spec.version' },
      { name: 'Repo', type: 'string', jsonPath: '.spec.repo' },
      { name: 'HelmVersion', type: 'string', jsonPath: '.spec.helmVersion' },
      { name: 'Bootstrap', type: 'string', jsonPath: '.spec.bootstrap' },
    ]),
    crd('helm.cattle.io', 'v1', 'HelmChartConfig', 'helmchartconfigs', 'Namespaced'),
  ];
}
