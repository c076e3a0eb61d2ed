import type { InstanceLayout } from '../layout/cluster-layout.js';
import type { DistroVersion } from '../layout/versions.js';
import type { KubeletCloudProvider, NodeConfig, StaticPodConfig } from '../nodes/node-config.js';
import { argList, rke2EffectiveConfig, rke2NodeNameUsesImdsV2 } from '../../../core/distros/rke2/index.js';

type MachineConfig = Record<string, unknown>;

/** True for `true`, `"true"` (Rancher stores booleans either way). */
function configFlag(value: unknown): boolean {
  return value === true || value === 'true';
}

/**
 * RKE2 (as of v1.26/1.27, before v1.29.11) turning a machine's configuration into component flags:
 * `cloud-provider-name: aws` passes `--cloud-provider=aws` to the kubelet, KCM and apiserver, and, unless
 * `node-name` is set, names the node after instance metadata's `local-hostname` (before v1.29.11 read with
 * a token-less IMDSv1 GET, falling back to `hostname -f` when that fails; rke2NodeNameUsesImdsV2); `external` passes
 * `--cloud-provider=external`. Then `kubelet-arg`, `kube-controller-manager-arg` and `kube-apiserver-arg`
 * entries override flags of the same name (so `cloud-provider=external` per role wins over the global name).
 */

export const RKE2_ROLE_LABELS = {
  controlPlane: 'rke.cattle.io/control-plane-role',
  etcd: 'rke.cattle.io/etcd-role',
  worker: 'rke.cattle.io/worker-role',
} as const;

/** The labels Rancher's machines (and so their nodes) carry for their roles. */
export function rke2MachineLabels(role: InstanceLayout['role']): Record<string, string> {
  return role === 'control-plane'
    ? { [RKE2_ROLE_LABELS.controlPlane]: 'true', [RKE2_ROLE_LABELS.etcd]: 'true' }
    : { [RKE2_ROLE_LABELS.worker]: 'true' };
}

function nodeRoleLabels(role: InstanceLayout['role']): Record<string, string> {
  return role === 'control-plane'
    ? {
        'node-role.kubernetes.io/control-plane': 'true',
        'node-role.kubernetes.io/etcd': 'true',
        'node-role.kubernetes.io/master': 'true',
      }
    : { 'node-role.kubernetes.io/worker': 'true' };
}

/** Merges `name=value` overrides into `--name=value` flags: same name replaces, new names append. */
export function mergeFlags(base: readonly string[], overrides: readonly string[]): string[] {
  const out = [...base];
  for (const raw of overrides) {
    const arg = raw.startsWith('--') ? raw.slice(2) : raw;
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg : arg.slice(0, eq);
    const flag = eq < 0 ? `--${name}=true` : `--${arg}`;
    const at = out.findIndex((f) => f === `--${name}` || f.startsWith(`--${name}=`));
    if (at >= 0) out[at] = flag;
    else out.push(flag);
  }
  return out;
}

export function cloudProviderName(config: MachineConfig): string {
  return typeof config['cloud-provider-name'] === 'string' ? config['cloud-provider-name'] : '';
}

function providerFlag(name: string): KubeletCloudProvider {
  if (name === 'aws') return 'aws';
  if (name === 'external') return 'external';
  return '';
}

export interface Rke2NodeInput {
  readonly rkeConfig: unknown;
  readonly instance: InstanceLayout;
  readonly version: DistroVersion;
}

export function rke2NodeConfig(input: Rke2NodeInput): NodeConfig {
  const { instance, version } = input;
  const machineLabels = rke2MachineLabels(instance.role);
  // Rancher's merge (machineGlobalConfig, then matching machineSelectorConfig entries, last wins), as the
  // planner computes it (src/core/distros/rke2/effective-config.ts).
  const config = rke2EffectiveConfig({ spec: { rkeConfig: input.rkeConfig } }, machineLabels);
  const providerName = cloudProviderName(config);
  const explicitName =
    typeof config['node-name'] === 'string' && config['node-name'] ? config['node-name'] : undefined;
  const nodeName =
    explicitName ?? (providerName === 'aws' ? metadataName(instance, version) : instance.hostname);
  const baseKubelet = [
    `--hostname-override=${nodeName}`,
    `--node-ip=${instance.privateIp}`,
    '--kubeconfig=/var/lib/rancher/rke2/agent/kubelet.kubeconfig',
    '--container-runtime-endpoint=unix:///run/k3s/containerd/containerd.sock',
  ];
  if (providerFlag(providerName)) baseKubelet.push(`--cloud-provider=${providerName}`);
  const kubeletArgs = mergeFlags(baseKubelet, argList(config['kubelet-arg']));
  const kubeletProvider = flagOf(kubeletArgs, 'cloud-provider');
  const hostnameOverride = flagOf(kubeletArgs, 'hostname-override');
  const labels = { ...nodeRoleLabels(instance.role), ...machineLabels };
  const taints =
    instance.role === 'control-plane'
      ? [{ key: 'node-role.kubernetes.io/control-plane', value: 'true', effect: 'NoSchedule' }]
      : [];
  const staticPods = instance.role === 'control-plane' ? controlPlanePods(config, providerName, version) : [];
  return {
    kubelet: {
      cloudProvider: providerFlag(kubeletProvider ?? ''),
      hostnameOverride,
      args: kubeletArgs,
      version: version.kubelet,
    },
    staticPods,
    labels,
    taints,
    annotations: {
      'rke2.io/hostname': instance.hostname,
      'rke2.io/internal-ip': instance.privateIp,
      'cluster.x-k8s.io/machine': instance.machineName,
    },
  };
}

/**
 * RKE2's hostnameFromMetadataEndpoint: `local-hostname`, over IMDSv2 from v1.29.11 on; before that a plain
 * GET, whose 401 on tokens-required instances leaves `hostname -f` (pkg/rke2/rke2_linux.go, rancher/rke2#7343).
 */
function metadataName(instance: InstanceLayout, version: DistroVersion): string {
  if (rke2NodeNameUsesImdsV2(version.version) || !instance.imdsV1Refused) return instance.imdsLocalHostname;
  return instance.hostname;
}

function flagOf(flags: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (const f of flags) if (f.startsWith(`--${name}=`)) value = f.slice(name.length + 3);
  return value;
}

function controlPlanePods(
  config: MachineConfig,
  providerName: string,
  version: DistroVersion,
): StaticPodConfig[] {
  const cloud = providerFlag(providerName) ? [`--cloud-provider=${providerName}`] : [];
  const embeddedCcm = !providerFlag(providerName) && !configFlag(config['disable-cloud-controller']);
  const apiserver = mergeFlags(
    [
      '--allow-privileged=true',
      '--anonymous-auth=false',
      '--authorization-mode=Node,RBAC',
      '--bind-address=0.0.0.0',
      ...cloud,
      '--enable-admission-plugins=NodeRestriction',
      '--etcd-servers=https://127.0.0.1:2379',
      '--secure-port=6443',
      '--service-cluster-ip-range=10.43.0.0/16',
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    ],
    argList(config['kube-apiserver-arg']),
  );
  const kcm = mergeFlags(
    [
      '--allocate-node-cidrs=true',
      '--bind-address=127.0.0.1',
      ...cloud,
      '--cluster-cidr=10.42.0.0/16',
      '--configure-cloud-routes=false',
      `--controllers=*,tokencleaner${embeddedCcm ? ',-service,-route,-cloud-node-lifecycle' : ''}`,
      '--kubeconfig=/var/lib/rancher/rke2/server/cred/controller.kubeconfig',
      '--profiling=false',
      '--secure-port=10257',
      '--service-cluster-ip-range=10.43.0.0/16',
      '--use-service-account-credentials=true',
    ],
    argList(config['kube-controller-manager-arg']),
  );
  return [
    {
      component: 'kube-apiserver',
      image: `index.docker.io/rancher/hardened-kubernetes:${version.imageTag}`,
      command: ['kube-apiserver'],
      args: apiserver,
      volumes: [],
      mirror: true,
    },
    {
      component: 'kube-controller-manager',
      image: `index.docker.io/rancher/hardened-kubernetes:${version.imageTag}`,
      command: ['kube-controller-manager'],
      args: kcm,
      volumes: [],
      mirror: true,
    },
  ];
}
