import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readClusterDefinition } from './preflight-definition.js';
import { UprootError } from '../../errors/index.js';

describe('readClusterDefinition', () => {
  it("merges RKE2 machineGlobalConfig with the machineSelectorConfig entries that match each role (Rancher's order)", () => {
    const doc = parse(`
apiVersion: provisioning.cattle.io/v1
kind: Cluster
metadata: {name: prod, namespace: fleet-default}
spec:
  kubernetesVersion: v1.26.15+rke2r1
  rkeConfig:
    machineGlobalConfig:
      cloud-provider-name: aws
    machineSelectorConfig:
      - config:
          disable-cloud-controller: true
          kube-controller-manager-arg: [cloud-provider=external]
          kubelet-arg: [cloud-provider=external]
        machineLabelSelector:
          matchExpressions:
            - {key: rke.cattle.io/control-plane-role, operator: In, values: ['true']}
      - config:
          kubelet-arg: [cloud-provider=external]
        machineLabelSelector:
          matchExpressions:
            - {key: rke.cattle.io/worker-role, operator: In, values: ['true']}
`);
    const def = readClusterDefinition(doc, 'cluster.yaml');
    expect(def).toMatchObject({
      distro: 'rke2',
      kubernetesVersion: 'v1.26.15+rke2r1',
      cloudProviderName: 'aws',
      roles: {
        'control-plane': {
          cloudProviderName: 'aws',
          kcmArgs: ['cloud-provider=external'],
          disableCloudController: true,
        },
        etcd: { kcmArgs: [], kubeletArgs: [] },
        worker: { kubeletArgs: ['cloud-provider=external'] },
      },
    });
  });

  it('reads RKE cluster.yml, bare or inside rancher_kubernetes_engine_config', () => {
    const yml = {
      nodes: [{ address: '10.0.0.1', hostname_override: 'cp-1', role: ['controlplane', 'etcd'] }],
      cloud_provider: { name: 'aws' },
      services: { 'kube-controller': { extra_args: { 'enable-leader-migration': 'true' } } },
    };
    expect(readClusterDefinition(yml, 'cluster.yml')).toMatchObject({
      distro: 'rke',
      cloudProviderName: 'aws',
      nodes: [{ address: '10.0.0.1', hostnameOverride: 'cp-1', roles: ['controlplane', 'etcd'] }],
      kcmExtraArgs: { 'enable-leader-migration': 'true' },
    });
    expect(
      readClusterDefinition(
        {
          rancher_kubernetes_engine_config: {
            cloud_provider: { name: 'external-aws', useInstanceMetadataHostname: true },
          },
        },
        'c.yml',
      ),
    ).toMatchObject({
      distro: 'rke',
      useInstanceMetadataHostname: true,
    });
    // Rancher turns it on for external-aws when the file leaves it out.
    expect(
      readClusterDefinition({ cloud_provider: { name: 'external-aws' }, nodes: [] }, 'c.yml'),
    ).toMatchObject({ useInstanceMetadataHostname: true });
  });

  it('reads a kubeadm kube-controller-manager manifest', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      spec: {
        containers: [
          {
            name: 'kube-controller-manager',
            image: 'registry.k8s.io/kube-controller-manager:v1.26.15',
            command: ['kube-controller-manager', '--cloud-provider=aws'],
          },
        ],
      },
    };
    expect(readClusterDefinition(pod, 'kcm.yaml')).toEqual({
      distro: 'kubeadm',
      source: 'kcm.yaml',
      kcmArgs: ['kube-controller-manager', '--cloud-provider=aws'],
      kcmImage: 'registry.k8s.io/kube-controller-manager:v1.26.15',
    });
  });

  it('rejects anything else with an error naming the file and the kind', () => {
    let error: unknown;
    try {
      readClusterDefinition({ apiVersion: 'v1', kind: 'ConfigMap' }, 'cm.yaml');
    } catch (e) {
      error = e;
    }
    expect(
      UprootError.is(error) && { code: error.code, location: error.location, exitCode: error.exitCode },
    ).toEqual({
      code: 'UP-PREFLIGHT-CLUSTER-FILE',
      location: { file: 'cm.yaml', field: 'kind', value: 'ConfigMap' },
      exitCode: 2,
    });
  });
});
