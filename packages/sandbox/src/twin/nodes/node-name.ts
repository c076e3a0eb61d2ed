import type { InstanceLayout } from '../layout/cluster-layout.js';
import type { KubeletConfig } from './node-config.js';

/**
 * The name a kubelet registers under. The in-tree AWS provider names the node after the instance's EC2
 * private DNS name whatever the kubelet is told (`CurrentNodeName`), so every in-tree node is named like
 * that; an external kubelet (or one without a cloud provider) uses `--hostname-override` when given, else
 * the OS hostname, lower-cased (prior-art §3: "only the in-tree kubelet chose the node name").
 */
export function kubeletNodeName(
  kubelet: Pick<KubeletConfig, 'cloudProvider' | 'hostnameOverride'>,
  instance: InstanceLayout,
): string {
  if (kubelet.cloudProvider === 'aws') return instance.privateDnsName;
  const name = kubelet.hostnameOverride ?? instance.hostname;
  return name.trim().toLowerCase();
}
