import type { InstanceLayout } from '../layout/cluster-layout.js';
import type { DistroVersion } from '../layout/versions.js';
import type { KubeletCloudProvider, NodeConfig, StaticPodConfig } from '../nodes/node-config.js';
import type { Taint } from '../scheduling/taints.js';
import {
  argList,
  rke2ApiserverGetsCloudProvider,
  rke2ComponentProvider,
  rke2EffectiveConfig,
  rke2NodeNameUsesImdsV2,
  rke2RunsBuiltInCloudController,
} from 'uproot/core';
import { rke2CloudProviderImage } from '../components/rke2-cloud-controller.js';

type MachineConfig = Record<string, unknown>;

/** True for `true`, `"true"` (Rancher stores booleans either way). */
function configFlag(value: unknown): boolean {
  return value === true || value === 'true';
}

/**
 * RKE2 turning a machine's configuration into component flags, by version (pkg/rke2/rke2_linux.go,
 * pkg/podexecutor/staticpod.go, later pkg/executor/staticpod/staticpod.go):
 * - `cloud-provider-name: aws` passes `--cloud-provider=aws` to the kubelet, KCM and apiserver and, unless
 *   `node-name` is set, names the node after instance metadata's `local-hostname` (before v1.29.11 read with a
 *   token-less IMDSv1 GET, falling back to `hostname -f` when that fails; rke2NodeNameUsesImdsV2). From v1.29.11, v1.30.7,
 *   v1.31.3 and v1.32.0 (rancher/rke2#7336, "Move AWS hostname support behind new flag") `aws` only names the
 *   node: no component gets a cloud provider.
 * - Any other name (`external`) passes `--cloud-provider=<name>` to the kubelet and KCM, and to the apiserver
 *   up to v1.32 (v1.33 dropped it: commit a9a0c194c "Remove kube-apiserver flags removed by upstream").
 * - Then `kubelet-arg`, `kube-controller-manager-arg` and `kube-apiserver-arg` entries override flags of the
 *   same name (so `cloud-provider=external` per role wins over the global name).
 * - Servers run RKE2's built-in cloud controller as a static pod unless it is disabled
 *   (components/rke2-cloud-controller.ts; rancher/rke2#10351 changed which names disable it in v1.36).
 */

export const RKE2_ROLE_LABELS = {
  controlPlane: 'rke.cattle.io/control-plane-role',
  etcd: 'rke.cattle.io/etcd-role',
  worker: 'rke.cattle.io/worker-role',
} as const;

/** The labels Rancher's machines (and so their nodes) carry for their roles. */
export function rke2MachineLabels(roles: InstanceLayout['roles']): Record<string, string> {
  const labels: Record<string, string> = {};
  if (roles.includes('control-plane')) labels[RKE2_ROLE_LABELS.controlPlane] = 'true';
  if (roles.includes('etcd')) labels[RKE2_ROLE_LABELS.etcd] = 'true';
  if (roles.includes('worker')) labels[RKE2_ROLE_LABELS.worker] = 'true';
  return labels;
}

/**
 * The role labels the node gets: RKE2 (k3s) labels servers that run the API server control-plane and master
 * (k3s pkg/server/server.go setNodeLabelsAndAnnotations) and etcd members etcd (k3s pkg/etcd
 * metadata_controller.go); Rancher labels worker machines' nodes worker (rancher/rancher
 * pkg/controllers/managementuser/machinerole).
 */
function nodeRoleLabels(roles: InstanceLayout['roles']): Record<string, string> {
  const labels: Record<string, string> = {};
  if (roles.includes('control-plane')) {
    labels['node-role.kubernetes.io/control-plane'] = 'true';
    labels['node-role.kubernetes.io/master'] = 'true';
  }
  if (roles.includes('etcd')) labels['node-role.kubernetes.io/etcd'] = 'true';
  if (roles.includes('worker')) labels['node-role.kubernetes.io/worker'] = 'true';
  return labels;
}

/**
 * Rancher's role taints, which it renders into the machine's `node-taint` (so the kubelet registers with
 * them): a machine that is not a worker gets `node-role.kubernetes.io/etcd:NoExecute` when it has etcd and
 * `node-role.kubernetes.io/control-plane:NoSchedule` when it has the control plane, both with an empty value
 * (rancher/rancher pkg/capr/planner/planner.go getTaints and config.go addTaints at 59bd052e; the same rule
 * for RKE2 in pkg/provisioningv2/rke2/planner/planner.go from v2.6.0). A combined etcd + control-plane
 * machine gets both; etcd + control-plane + worker gets none. (K3s combined machines skip the etcd taint;
 * the twin runs RKE2.) addTaints replaces any `node-taint` of the user's machine config, so none is read.
 */
export function rancherRoleTaints(roles: InstanceLayout['roles']): Taint[] {
  if (roles.includes('worker')) return [];
  const taints: Taint[] = [];
  if (roles.includes('etcd')) taints.push({ key: 'node-role.kubernetes.io/etcd', effect: 'NoExecute' });
  if (roles.includes('control-plane'))
    taints.push({ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' });
  return taints;
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
  const machineLabels = rke2MachineLabels(instance.roles);
  const controlPlane = instance.roles.includes('control-plane');
  // Rancher's merge (machineGlobalConfig, then matching machineSelectorConfig entries, last wins), as the
  // planner computes it (src/core/distros/rke2/effective-config.ts).
  const config = rke2EffectiveConfig({ spec: { rkeConfig: input.rkeConfig } }, machineLabels);
  const configuredName = cloudProviderName(config);
  const providerName = rke2ComponentProvider(configuredName, version.version);
  const explicitName =
    typeof config['node-name'] === 'string' && config['node-name'] ? config['node-name'] : undefined;
  const nodeName =
    explicitName ?? (configuredName === 'aws' ? metadataName(instance, version) : instance.hostname);
  const baseKubelet: string[] = [
    `--hostname-override=${nodeName}`,
    `--node-ip=${instance.privateIp}`,
    '--kubeconfig=/var/lib/rancher/rke2/agent/kubelet.kubeconfig',
    '--container-runtime-endpoint=unix:///run/k3s/containerd/containerd.sock',
  ];
  if (providerName) baseKubelet.push(`--cloud-provider=${providerName}`);
  const kubeletArgs = mergeFlags(baseKubelet, argList(config['kubelet-arg']));
  const kubeletProvider = flagOf(kubeletArgs, 'cloud-provider');
  const hostnameOverride = flagOf(kubeletArgs, 'hostname-override');
  const labels = { ...nodeRoleLabels(instance.roles), ...machineLabels };
  const taints = rancherRoleTaints(instance.roles);
  // Rancher runs etcd-only machines with disable-apiserver/-controller-manager/-scheduler (planner
  // config.go addRoleConfig): no control-plane static pods (etcd itself is not simulated).
  const staticPods = controlPlane ? controlPlanePods(config, providerName, configuredName, version) : [];
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
  configuredName: string,
  version: DistroVersion,
): StaticPodConfig[] {
  const cloud = providerName ? [`--cloud-provider=${providerName}`] : [];
  const builtInCcm = rke2RunsBuiltInCloudController(version.version, {
    cloudProviderName: configuredName,
    cloudProviderConfig:
      typeof config['cloud-provider-config'] === 'string' ? config['cloud-provider-config'] : '',
    disableCloudController: configFlag(config['disable-cloud-controller']),
  });
  const apiserver = mergeFlags(
    [
      '--allow-privileged=true',
      '--anonymous-auth=false',
      '--authorization-mode=Node,RBAC',
      '--bind-address=0.0.0.0',
      ...(rke2ApiserverGetsCloudProvider(version.version) ? cloud : []),
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
      `--controllers=*,tokencleaner${builtInCcm ? ',-service,-route,-cloud-node-lifecycle' : ''}`,
      '--kubeconfig=/var/lib/rancher/rke2/server/cred/controller.kubeconfig',
      '--profiling=false',
      '--secure-port=10257',
      '--service-cluster-ip-range=10.43.0.0/16',
      '--use-service-account-credentials=true',
    ],
    argList(config['kube-controller-manager-arg']),
  );
  const pods: StaticPodConfig[] = [
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
  if (builtInCcm) {
    pods.push({
      component: 'cloud-controller-manager',
      image: rke2CloudProviderImage(version.version),
      command: ['cloud-controller-manager'],
      args: [
        '--allocate-node-cidrs=true',
        '--bind-address=127.0.0.1',
        '--cloud-provider=rke2',
        '--cluster-cidr=10.42.0.0/16',
        '--configure-cloud-routes=false',
        '--controllers=*,-route',
        '--kubeconfig=/var/lib/rancher/rke2/server/cred/cloud-controller.kubeconfig',
        '--leader-elect-resource-name=rke2-cloud-controller-manager',
        '--node-status-update-frequency=1m0s',
        '--profiling=false',
      ],
      volumes: [],
      mirror: true,
    });
  }
  return pods;
}
