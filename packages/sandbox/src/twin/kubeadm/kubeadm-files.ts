import { parseDocument, stringify } from 'yaml';
import type { InstanceLayout } from '../layout/cluster-layout.js';
import type { DistroVersion } from '../layout/versions.js';
import { atLeast } from 'uproot/core';
import { isRecord } from '../kube/kube-types.js';
import type {
  HostPathVolume,
  KubeletCloudProvider,
  NodeConfig,
  StaticPodComponent,
  StaticPodConfig,
} from '../nodes/node-config.js';

/**
 * A kubeadm control-plane node's files, as kubeadm 1.26 writes them: the static pod manifests in
 * /etc/kubernetes/manifests and the kubelet's /var/lib/kubelet/kubeadm-flags.env. The twin's kubelet reads
 * them back (parseStaticPodManifest, parseKubeletFlags) whenever they change, so editing these files is how
 * a person changes the cluster, as seed 003 describes.
 */

export const MANIFESTS_DIR = 'etc/kubernetes/manifests';
export const KUBELET_FLAGS_FILE = 'var/lib/kubelet/kubeadm-flags.env';

const PKI_VOLUMES = [
  { name: 'ca-certs', hostPath: '/etc/ssl/certs', mountPath: '/etc/ssl/certs', type: 'DirectoryOrCreate' },
  {
    name: 'etc-ca-certificates',
    hostPath: '/etc/ca-certificates',
    mountPath: '/etc/ca-certificates',
    type: 'DirectoryOrCreate',
  },
  {
    name: 'k8s-certs',
    hostPath: '/etc/kubernetes/pki',
    mountPath: '/etc/kubernetes/pki',
    type: 'DirectoryOrCreate',
  },
];

function manifest(
  component: StaticPodComponent,
  image: string,
  flags: string[],
  volumes: typeof PKI_VOLUMES,
  cpu: string,
): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      creationTimestamp: null,
      labels: { component, tier: 'control-plane' },
      name: component,
      namespace: 'kube-system',
    },
    spec: {
      containers: [
        {
          command: [component, ...flags],
          image,
          imagePullPolicy: 'IfNotPresent',
          name: component,
          resources: { requests: { cpu } },
          volumeMounts: volumes.map((v) => ({ mountPath: v.mountPath, name: v.name, readOnly: true })),
        },
      ],
      hostNetwork: true,
      priority: 2000001000,
      priorityClassName: 'system-node-critical',
      securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
      volumes: volumes.map((v) => ({ hostPath: { path: v.hostPath, type: v.type }, name: v.name })),
    },
    status: {},
  };
}

export function kubeControllerManagerManifest(
  version: DistroVersion,
  cloudProvider: KubeletCloudProvider,
  /** Leave --configure-cloud-routes to its default (true): the KCM runs the route controller. */
  options: { readonly cloudRoutes?: boolean } = {},
): string {
  const flags = [
    '--allocate-node-cidrs=true',
    '--authentication-kubeconfig=/etc/kubernetes/controller-manager.conf',
    '--authorization-kubeconfig=/etc/kubernetes/controller-manager.conf',
    '--bind-address=127.0.0.1',
    '--client-ca-file=/etc/kubernetes/pki/ca.crt',
    ...(cloudProvider ? [`--cloud-provider=${cloudProvider}`] : []),
    '--cluster-cidr=10.244.0.0/16',
    '--cluster-name=kubernetes',
    '--cluster-signing-cert-file=/etc/kubernetes/pki/ca.crt',
    '--cluster-signing-key-file=/etc/kubernetes/pki/ca.key',
    ...(options.cloudRoutes ? [] : ['--configure-cloud-routes=false']),
    '--controllers=*,bootstrapsigner,tokencleaner',
    '--kubeconfig=/etc/kubernetes/controller-manager.conf',
    '--leader-elect=true',
    '--requestheader-client-ca-file=/etc/kubernetes/pki/front-proxy-ca.crt',
    '--root-ca-file=/etc/kubernetes/pki/ca.crt',
    '--service-account-private-key-file=/etc/kubernetes/pki/sa.key',
    '--service-cluster-ip-range=10.96.0.0/12',
    '--use-service-account-credentials=true',
  ];
  const volumes = [
    ...PKI_VOLUMES,
    {
      name: 'kubeconfig',
      hostPath: '/etc/kubernetes/controller-manager.conf',
      mountPath: '/etc/kubernetes/controller-manager.conf',
      type: 'FileOrCreate',
    },
  ];
  return stringify(
    manifest(
      'kube-controller-manager',
      `registry.k8s.io/kube-controller-manager:${version.imageTag}`,
      flags,
      volumes,
      '200m',
    ),
  );
}

export function kubeApiserverManifest(
  version: DistroVersion,
  instance: InstanceLayout,
  cloudProvider: KubeletCloudProvider,
): string {
  const flags = [
    `--advertise-address=${instance.privateIp}`,
    '--allow-privileged=true',
    '--authorization-mode=Node,RBAC',
    '--client-ca-file=/etc/kubernetes/pki/ca.crt',
    // kube-apiserver 1.33 has no --cloud-provider (kubernetes/kubernetes#130162): a cluster built at 1.33+
    // never had it in this manifest.
    ...(cloudProvider && !atLeast(version.version, 1, 33) ? [`--cloud-provider=${cloudProvider}`] : []),
    '--enable-admission-plugins=NodeRestriction',
    '--etcd-servers=https://127.0.0.1:2379',
    '--secure-port=6443',
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    '--service-cluster-ip-range=10.96.0.0/12',
  ];
  return stringify(
    manifest(
      'kube-apiserver',
      `registry.k8s.io/kube-apiserver:${version.imageTag}`,
      flags,
      PKI_VOLUMES,
      '250m',
    ),
  );
}

/** Where kubeadm stores its ClusterConfiguration, and under which key. */
export const KUBEADM_CONFIG = {
  namespace: 'kube-system',
  name: 'kubeadm-config',
  key: 'ClusterConfiguration',
};

/**
 * kube-system/kubeadm-config as `kubeadm init` uploads it: the ClusterConfiguration (without component
 * configs) that `kubeadm upgrade` reads back (kubernetes/kubernetes
 * cmd/kubeadm/app/phases/uploadconfig/uploadconfig.go). Marshalled in kubeadm's default API version:
 * v1beta3, whose extraArgs are a map, up to 1.30; v1beta4, whose extraArgs are a list of name/value pairs, from
 * 1.31 (cmd/kubeadm/app/apis/kubeadm/v1beta4/doc.go). The flags are the manifests' own (kubeApiserverManifest,
 * kubeControllerManagerManifest), as kubeadm wrote both from one configuration.
 */
export function kubeadmConfigMap(
  version: DistroVersion,
  cloudProvider: KubeletCloudProvider,
): Record<string, unknown> {
  const beta4 = atLeast(version.version, 1, 31);
  const args = (map: Record<string, string>): unknown =>
    beta4 ? Object.entries(map).map(([name, value]) => ({ name, value })) : map;
  const cloud: Record<string, string> = cloudProvider ? { 'cloud-provider': cloudProvider } : {};
  const apiServerCloud = atLeast(version.version, 1, 33) ? {} : cloud;
  const configuration = {
    apiServer: {
      extraArgs: args({ 'authorization-mode': 'Node,RBAC', ...apiServerCloud }),
      ...(beta4 ? {} : { timeoutForControlPlane: '4m0s' }),
    },
    apiVersion: `kubeadm.k8s.io/${beta4 ? 'v1beta4' : 'v1beta3'}`,
    certificatesDir: '/etc/kubernetes/pki',
    clusterName: 'kubernetes',
    controllerManager: {
      extraArgs: args({ ...cloud, 'configure-cloud-routes': 'false' }),
    },
    dns: {},
    etcd: { local: { dataDir: '/var/lib/etcd' } },
    imageRepository: 'registry.k8s.io',
    kind: 'ClusterConfiguration',
    kubernetesVersion: version.imageTag,
    networking: { dnsDomain: 'cluster.local', podSubnet: '10.244.0.0/16', serviceSubnet: '10.96.0.0/12' },
    scheduler: {},
  };
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: KUBEADM_CONFIG.name, namespace: KUBEADM_CONFIG.namespace },
    data: { [KUBEADM_CONFIG.key]: stringify(configuration) },
  };
}

export function kubeletFlagsEnv(cloudProvider: KubeletCloudProvider): string {
  const flags = [
    ...(cloudProvider ? [`--cloud-provider=${cloudProvider}`] : []),
    '--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock',
    '--pod-infra-container-image=registry.k8s.io/pause:3.9',
  ];
  return `KUBELET_KUBEADM_ARGS="${flags.join(' ')}"\n`;
}

export type ManifestParse =
  { readonly ok: true; readonly pod: StaticPodConfig } | { readonly ok: false; readonly error: string };

const COMPONENTS: readonly StaticPodComponent[] = [
  'kube-apiserver',
  'kube-controller-manager',
  'cloud-controller-manager',
];

/** Reads a static pod manifest the way the kubelet's file source does; an unreadable file is reported. */
export function parseStaticPodManifest(text: string, fileName: string): ManifestParse {
  const doc = parseDocument(text);
  if (doc.errors[0])
    return {
      ok: false,
      error: `could not process manifest file "${fileName}": ${doc.errors[0].message.split('\n')[0]}`,
    };
  const pod: unknown = doc.toJS();
  if (!isRecord(pod) || pod.kind !== 'Pod')
    return { ok: false, error: `could not process manifest file "${fileName}": not a Pod` };
  const meta = isRecord(pod.metadata) ? pod.metadata : {};
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const containers = Array.isArray(spec.containers) ? spec.containers.filter(isRecord) : [];
  const container = containers[0];
  if (!container) return { ok: false, error: `could not process manifest file "${fileName}": no containers` };
  const labels = isRecord(meta.labels) ? meta.labels : {};
  const named = [labels.component, meta.name, container.name, fileName.replace(/\.ya?ml$/, '')].map(String);
  const component = COMPONENTS.find((c) => named.includes(c));
  if (!component)
    return { ok: false, error: `manifest "${fileName}" is not a control-plane component the sandbox runs` };
  const volumes = Array.isArray(spec.volumes) ? spec.volumes.filter(isRecord) : [];
  const mounts = Array.isArray(container.volumeMounts) ? container.volumeMounts.filter(isRecord) : [];
  const hostPaths: HostPathVolume[] = [];
  for (const m of mounts) {
    const v = volumes.find((vol) => vol.name === m.name);
    const hostPath = v && isRecord(v.hostPath) ? v.hostPath : undefined;
    if (hostPath && typeof hostPath.path === 'string' && typeof m.mountPath === 'string') {
      hostPaths.push({
        name: String(m.name),
        hostPath: hostPath.path,
        mountPath: m.mountPath,
        ...(typeof hostPath.type === 'string' ? { type: hostPath.type } : {}),
      });
    }
  }
  const command = Array.isArray(container.command) ? container.command.map(String) : [component];
  return {
    ok: true,
    pod: {
      component,
      image: String(container.image ?? ''),
      command,
      args: Array.isArray(container.args) ? container.args.map(String) : [],
      volumes: hostPaths,
      mirror: true,
    },
  };
}

/** The flags in kubeadm-flags.env (`KUBELET_KUBEADM_ARGS="..."`). */
export function parseKubeletFlags(text: string): string[] {
  const m =
    /KUBELET_KUBEADM_ARGS\s*=\s*"([^"]*)"/.exec(text) ?? /KUBELET_KUBEADM_ARGS\s*=\s*(.*)$/m.exec(text);
  return (m?.[1] ?? '').split(/\s+/).filter((f) => f !== '');
}

function flagOf(flags: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < flags.length; i++) {
    const f = flags[i]!;
    if (f.startsWith(`--${name}=`)) value = f.slice(name.length + 3);
    else if (f === `--${name}` && flags[i + 1] !== undefined) value = flags[i + 1];
  }
  return value;
}

export function kubeadmNodeConfig(options: {
  readonly instance: InstanceLayout;
  /** The machine's installed kubelet (installed-kubelet.ts). */
  readonly kubeletVersion: string;
  readonly kubeletFlags: readonly string[];
  readonly staticPods: readonly StaticPodConfig[];
}): NodeConfig {
  const provider = flagOf(options.kubeletFlags, 'cloud-provider') ?? '';
  const isControl = options.instance.role === 'control-plane';
  return {
    kubelet: {
      cloudProvider: provider === 'aws' || provider === 'external' ? provider : '',
      hostnameOverride: flagOf(options.kubeletFlags, 'hostname-override'),
      args: [...options.kubeletFlags],
      version: options.kubeletVersion,
    },
    staticPods: [...options.staticPods].sort((a, b) => a.component.localeCompare(b.component)),
    labels: isControl
      ? {
          'node-role.kubernetes.io/control-plane': '',
          'node.kubernetes.io/exclude-from-external-load-balancers': '',
        }
      : {},
    // kubeadm's ControlPlaneTaint, no value (kubernetes/kubernetes cmd/kubeadm/app/constants/constants.go);
    // the `master` taint went in kubeadm 1.25, before any version the twin runs.
    taints: isControl ? [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] : [],
    annotations: {
      'kubeadm.alpha.kubernetes.io/cri-socket': 'unix:///var/run/containerd/containerd.sock',
      'node.alpha.kubernetes.io/ttl': '0',
    },
  };
}
