import { describe, expect, it } from 'vitest';
import { fromChartValues, helmChartsInManifest } from './installed-chart.js';

describe('chart values over the defaults (Helm semantics)', () => {
  it('uses the chart defaults without values', () => {
    expect(fromChartValues('helmchart', 'x')).toMatchObject({
      image: 'registry.k8s.io/provider-aws/cloud-controller-manager:v1.35.0',
      args: ['--v=2', '--cloud-provider=aws'],
      nodeSelector: { 'node-role.kubernetes.io/control-plane': '' },
      hostNetwork: false,
    });
  });

  it('merges nodeSelector maps (null deletes a key) and replaces lists', () => {
    const d = fromChartValues(
      'helmchart',
      'x',
      "image: {tag: v1.26.11}\nhostNetworking: true\nargs: [--cloud-provider=aws]\nnodeSelector:\n  node-role.kubernetes.io/controlplane: 'true'\ntolerations: []\n",
    );
    expect(d).toMatchObject({
      image: 'registry.k8s.io/provider-aws/cloud-controller-manager:v1.26.11',
      args: ['--cloud-provider=aws'],
      nodeSelector: {
        'node-role.kubernetes.io/control-plane': '',
        'node-role.kubernetes.io/controlplane': 'true',
      },
      tolerations: [],
      hostNetwork: true,
    });
    const cleared = fromChartValues(
      'helmchart',
      'x',
      "nodeSelector:\n  node-role.kubernetes.io/control-plane: null\n  node-role.kubernetes.io/controlplane: 'true'\n",
    );
    expect(cleared.nodeSelector).toEqual({ 'node-role.kubernetes.io/controlplane': 'true' });
  });

  it('finds HelmCharts in a multi-document additionalManifest', () => {
    const manifest =
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: helm.cattle.io/v1\nkind: HelmChart\nmetadata: {name: aws-cloud-controller-manager, namespace: kube-system}\nspec:\n  chart: aws-cloud-controller-manager\n  valuesContent: "hostNetworking: true"\n';
    expect(helmChartsInManifest(manifest)).toEqual([
      {
        namespace: 'kube-system',
        name: 'aws-cloud-controller-manager',
        chart: 'aws-cloud-controller-manager',
        valuesContent: 'hostNetworking: true',
      },
    ]);
  });
});
