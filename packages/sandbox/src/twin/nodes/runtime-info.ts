import type { Distribution } from '../../scenarios/index.js';
import type { DistroVersion } from '../layout/versions.js';
import type { NodeRuntimeInfo } from './node-object.js';

/** What each distribution's nodes report as OS, kernel and container runtime in `status.nodeInfo`. */
export function runtimeInfoFor(distribution: Distribution, _version: DistroVersion): NodeRuntimeInfo {
  switch (distribution) {
    case 'rke2':
      return {
        osImage: 'Ubuntu 22.04.4 LTS',
        kernelVersion: '5.15.0-1057-aws',
        containerRuntimeVersion: 'containerd://1.7.11-k3s2',
      };
    case 'rke':
      return {
        osImage: 'Ubuntu 20.04.6 LTS',
        kernelVersion: '5.15.0-1057-aws',
        containerRuntimeVersion: 'docker://20.10.24',
      };
    case 'kubeadm':
    case 'none':
      return {
        osImage: 'Ubuntu 22.04.4 LTS',
        kernelVersion: '5.15.0-1057-aws',
        containerRuntimeVersion: 'containerd://1.6.28',
      };
  }
}
