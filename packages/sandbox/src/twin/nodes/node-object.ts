import type { InstanceLayout } from '../layout/cluster-layout.js';
import { TAINTS, type Taint } from '../scheduling/taints.js';
import type { KubeObject } from '../kube/kube-types.js';
import { kubeTime } from '../kube/kube-types.js';
import type { NodeConfig } from './node-config.js';

/**
 * The Node a kubelet registers, and the status it posts. An in-tree AWS kubelet sets the providerID
 * (`aws:///<az>/<instance-id>`), addresses and topology labels itself from the cloud provider; an external
 * kubelet registers with the uninitialized taint and leaves all of that to the cloud-controller-manager.
 */

export interface NodeRuntimeInfo {
  readonly osImage: string;
  readonly containerRuntimeVersion: string;
  readonly kernelVersion: string;
}

export function providerIdFor(instance: Pick<InstanceLayout, 'availabilityZone' | 'instanceId'>): string {
  return `aws:///${instance.availabilityZone}/${instance.instanceId}`;
}

/** The labels an in-tree kubelet copies from the cloud provider (and the CCM's cloud-node controller sets). */
export function cloudLabels(instance: InstanceLayout, region: string): Record<string, string> {
  return {
    'node.kubernetes.io/instance-type': instance.instanceType,
    'beta.kubernetes.io/instance-type': instance.instanceType,
    'topology.kubernetes.io/zone': instance.availabilityZone,
    'failure-domain.beta.kubernetes.io/zone': instance.availabilityZone,
    'topology.kubernetes.io/region': region,
    'failure-domain.beta.kubernetes.io/region': region,
  };
}

export function cloudAddresses(instance: InstanceLayout): { type: string; address: string }[] {
  return [
    { type: 'InternalIP', address: instance.privateIp },
    { type: 'InternalDNS', address: instance.privateDnsName },
    { type: 'Hostname', address: instance.privateDnsName },
  ];
}

export interface RegistrationInput {
  readonly name: string;
  readonly instance: InstanceLayout;
  readonly region: string;
  readonly config: NodeConfig;
  readonly runtime: NodeRuntimeInfo;
  readonly podCidr: string | undefined;
}

/** The Node object a kubelet creates when none exists under its name. */
export function newNodeObject(input: RegistrationInput): KubeObject {
  const { name, instance, config } = input;
  const inTree = config.kubelet.cloudProvider === 'aws';
  const taints: Taint[] = [...config.taints];
  if (config.kubelet.cloudProvider === 'external') {
    taints.push({ key: TAINTS.uninitialized, value: 'true', effect: 'NoSchedule' });
  }
  const spec: Record<string, unknown> = {};
  if (inTree) spec.providerID = providerIdFor(instance);
  if (input.podCidr) {
    spec.podCIDR = input.podCidr;
    spec.podCIDRs = [input.podCidr];
  }
  if (taints.length > 0) spec.taints = taints;
  const annotations: Record<string, string> = {
    'node.alpha.kubernetes.io/ttl': '0',
    'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
    ...config.annotations,
  };
  if (config.kubelet.cloudProvider === 'external')
    annotations['alpha.kubernetes.io/provided-node-ip'] = instance.privateIp;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: registrationLabels(input), annotations },
    spec,
  };
}

/** Labels the kubelet (re)applies on every start: its own defaults, the distribution's, and the cloud's when in-tree. */
export function registrationLabels(
  input: Pick<RegistrationInput, 'name' | 'instance' | 'region' | 'config'>,
): Record<string, string> {
  const labels: Record<string, string> = {
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': input.name,
    'kubernetes.io/os': 'linux',
    ...input.config.labels,
  };
  if (input.config.kubelet.cloudProvider === 'aws')
    Object.assign(labels, cloudLabels(input.instance, input.region));
  return labels;
}

export interface NodeStatusInput {
  readonly name: string;
  readonly instance: InstanceLayout;
  readonly config: NodeConfig;
  readonly runtime: NodeRuntimeInfo;
  readonly now: number;
  /** When the kubelet started (the Ready condition's transition time). */
  readonly readySince: number;
  readonly ready: boolean;
}

const CAPACITY = { cpu: '2', 'ephemeral-storage': '83873772Ki', memory: '8026952Ki', pods: '110' };

/** `status` as a kubelet posts it: conditions, addresses (in-tree or none), capacity and nodeInfo. */
export function nodeStatus(input: NodeStatusInput, existingAddresses: unknown): Record<string, unknown> {
  const now = kubeTime(input.now);
  const since = kubeTime(input.readySince);
  const condition = (
    type: string,
    status: string,
    reason: string,
    message: string,
  ): Record<string, string> => ({
    type,
    status,
    lastHeartbeatTime: now,
    lastTransitionTime: since,
    reason,
    message,
  });
  const cloud = input.config.kubelet.cloudProvider;
  // In-tree the kubelet takes addresses from EC2; external leaves them to the CCM (keeping what is there);
  // without a cloud provider it reports what it sees on the host.
  const addresses =
    cloud === 'aws'
      ? cloudAddresses(input.instance)
      : cloud === 'external'
        ? Array.isArray(existingAddresses)
          ? existingAddresses
          : []
        : [
            { type: 'InternalIP', address: input.instance.privateIp },
            { type: 'Hostname', address: input.name },
          ];
  return {
    conditions: [
      condition(
        'MemoryPressure',
        'False',
        'KubeletHasSufficientMemory',
        'kubelet has sufficient memory available',
      ),
      condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
      condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
      input.ready
        ? condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status')
        : condition(
            'Ready',
            'False',
            'KubeletNotReady',
            'container runtime status check may not have completed yet',
          ),
    ],
    addresses,
    capacity: CAPACITY,
    allocatable: CAPACITY,
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      architecture: 'amd64',
      bootID: `${input.instance.instanceId.slice(2, 10)}-0000-4000-8000-${input.instance.instanceId.slice(-12)}`,
      containerRuntimeVersion: input.runtime.containerRuntimeVersion,
      kernelVersion: input.runtime.kernelVersion,
      kubeProxyVersion: input.config.kubelet.version,
      kubeletVersion: input.config.kubelet.version,
      machineID: input.instance.instanceId.slice(2).padEnd(32, '0'),
      operatingSystem: 'linux',
      osImage: input.runtime.osImage,
      systemUUID: `ec2${input.instance.instanceId.slice(2, 7)}-0000-4000-8000-${input.instance.instanceId.slice(-12)}`,
    },
  };
}

/** The conditions the node lifecycle controller writes when a kubelet stops posting (Unknown). */
export function unknownConditions(previous: unknown, now: number): unknown[] {
  const list = Array.isArray(previous) ? (previous as Record<string, unknown>[]) : [];
  return list.map((c) => ({
    ...c,
    status: 'Unknown',
    reason: 'NodeStatusUnknown',
    message: 'Kubelet stopped posting node status.',
    lastTransitionTime: c.status === 'Unknown' ? c.lastTransitionTime : kubeTime(now),
  }));
}
