import type { Scenario } from '../../scenarios/index.js';
import { isRecord, type KubeObject } from '../kube/kube-types.js';
import {
  kubeApiserverManifest,
  kubeControllerManagerManifest,
  kubeadmNodeConfig,
  kubeletFlagsEnv,
  parseKubeletFlags,
  parseStaticPodManifest,
} from '../kubeadm/kubeadm-files.js';
import type { DistroVersion } from '../layout/versions.js';
import type { NodeAgent } from '../nodes/node-agent.js';
import type { KubeletCloudProvider, NodeConfig, StaticPodConfig } from '../nodes/node-config.js';
import type { RkeUp } from '../rke/rke-up.js';
import { rke2NodeConfig } from '../rke2/rke2-node-config.js';
import { InternalError } from 'uproot';

/**
 * Every machine's configuration at boot, from the distribution's own source of truth: the provisioning
 * Cluster (RKE2), cluster.yml (RKE), or the files kubeadm wrote (kubeadm, whose node folders are returned).
 */

export function kubeadmInitialPods(
  agent: NodeAgent,
  version: DistroVersion,
  cloud: KubeletCloudProvider,
  options: { readonly cloudRoutes?: boolean } = {},
): StaticPodConfig[] {
  if (agent.instance.role !== 'control-plane') return [];
  const files: [string, string][] = [
    ['kube-apiserver.yaml', kubeApiserverManifest(version, agent.instance, cloud)],
    ['kube-controller-manager.yaml', kubeControllerManagerManifest(version, cloud, options)],
  ];
  return files.map(([name, text]) => {
    const parsed = parseStaticPodManifest(text, name);
    if (!parsed.ok)
      throw new InternalError(`the kubeadm manifest the twin renders does not parse: ${parsed.error}`);
    return parsed.pod;
  });
}

export function initialConfigs(options: {
  readonly scenario: Scenario;
  readonly version: DistroVersion;
  readonly agents: readonly NodeAgent[];
  readonly provisioningCluster: KubeObject | undefined;
  readonly rkeUp: RkeUp;
  readonly clusterYaml: { readonly text: string; readonly file: string } | undefined;
}): Map<NodeAgent, NodeConfig> {
  const { scenario, version, agents } = options;
  const configs = new Map<NodeAgent, NodeConfig>();
  const cloud: KubeletCloudProvider = scenario.cloudProvider === 'in-tree' ? 'aws' : 'external';
  switch (scenario.distribution) {
    case 'rke2': {
      const spec = isRecord(options.provisioningCluster?.spec) ? options.provisioningCluster.spec : {};
      for (const agent of agents)
        configs.set(agent, rke2NodeConfig({ rkeConfig: spec.rkeConfig, instance: agent.instance, version }));
      break;
    }
    case 'rke': {
      if (!options.clusterYaml) throw new InternalError('an RKE twin needs its cluster.yml');
      const planned = options.rkeUp.plan(options.clusterYaml.text, options.clusterYaml.file);
      for (const [agent, config] of planned.configs) configs.set(agent, config);
      break;
    }
    case 'kubeadm':
    case 'none': {
      const flags = parseKubeletFlags(kubeletFlagsEnv(cloud));
      for (const agent of agents) {
        configs.set(
          agent,
          kubeadmNodeConfig({
            instance: agent.instance,
            kubeletVersion: version.kubelet,
            kubeletFlags: flags,
            staticPods: kubeadmInitialPods(agent, version, cloud, {
              cloudRoutes: scenario.network.cloudRoutes,
            }),
          }),
        );
      }
      break;
    }
  }
  return configs;
}
