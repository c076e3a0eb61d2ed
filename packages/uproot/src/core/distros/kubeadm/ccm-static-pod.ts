/**
 * The cloud-controller-manager static pod uproot adds next to each kube-controller-manager (seed 003:
 * "update the cloud-controller-manager manifest to mount the configuration file in the same way as
 * kube-controller-manager ... add --enable-leader-migration and --leader-migration-config").
 *
 * It runs with the KCM's kubeconfig (kubeadm issues no CCM credentials) and without service-account
 * credentials, so every request is made as system:kube-controller-manager; the install step binds the
 * chart's system:cloud-controller-manager ClusterRole (seed 004's rules, leases included) to that user.
 */
import { CCM_IMAGE_REPOSITORY } from '../../ccm/index.js';
import { addToCommaList, lastFlagValue, setFlag } from '../../model/flag-list.js';
import { isRecord, type JsonRecord } from '../../model/json-value.js';
import { containers, flagsOf, withHostPath } from './static-pod.js';

export const CCM_MANIFEST_PATH = '/etc/kubernetes/manifests/cloud-controller-manager.yaml';
export const KCM_MANIFEST_PATH = '/etc/kubernetes/manifests/kube-controller-manager.yaml';
export const APISERVER_MANIFEST_PATH = '/etc/kubernetes/manifests/kube-apiserver.yaml';
export const SCHEDULER_MANIFEST_PATH = '/etc/kubernetes/manifests/kube-scheduler.yaml';
/** Where kubeadm keeps the kubelet's flags (KUBELET_KUBEADM_ARGS). */
export const KUBEADM_FLAGS_PATH = '/var/lib/kubelet/kubeadm-flags.env';
export const LEADER_MIGRATION_FILE = '/etc/leadermigration.conf';
export const LEADER_MIGRATION_VOLUME = 'leadermigration';
export const CCM_USER = 'system:kube-controller-manager';

export interface CcmPodOptions {
  readonly imageTag: string;
  readonly leaderMigration: boolean;
  readonly featureGate: boolean;
  readonly withNodeIpam: boolean;
  /**
   * The route flags the plan decided (controller-handover.ts): they replace the KCM's copied
   * --allocate-node-cidrs/--cluster-cidr/--configure-cloud-routes. Absent in plans made before the decision.
   */
  readonly ccmArgs?: readonly string[];
}

/** Renders the CCM pod, taking kubeconfig, cloud-config and CIDR settings from the KCM it sits next to. */
export function renderCcmPod(kcm: JsonRecord | undefined, options: CcmPodOptions): JsonRecord {
  const kcmContainer = kcm ? containers(kcm)[0] : undefined;
  const kcmFlags = kcmContainer ? flagsOf(kcmContainer) : [];
  const kubeconfig = lastFlagValue(kcmFlags, 'kubeconfig') ?? '/etc/kubernetes/controller-manager.conf';
  const copied = [
    'cloud-config',
    'cluster-name',
    'allocate-node-cidrs',
    'cluster-cidr',
    'configure-cloud-routes',
  ]
    .map((name) => [name, lastFlagValue(kcmFlags, name)] as const)
    .filter((entry): entry is readonly [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `--${name}=${value}`);
  let flags = [
    '--cloud-provider=aws',
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    '--bind-address=127.0.0.1',
    '--secure-port=10258',
    '--leader-elect=true',
    '--v=2',
    ...copied,
  ];
  if (options.ccmArgs) for (const arg of options.ccmArgs) flags = setFlag(flags, arg);
  else if (!copied.some((f) => f.startsWith('--configure-cloud-routes=')))
    flags = setFlag(flags, '--configure-cloud-routes=false');
  if (options.withNodeIpam) flags = setFlag(flags, '--controllers=*,nodeipam');
  if (options.featureGate)
    flags = setFlag(
      flags,
      `--feature-gates=${addToCommaList(undefined, 'ControllerManagerLeaderMigration=true')}`,
    );
  if (options.leaderMigration) {
    flags = setFlag(flags, '--enable-leader-migration');
    flags = setFlag(flags, `--leader-migration-config=${LEADER_MIGRATION_FILE}`);
  }
  const container: JsonRecord = {
    name: 'cloud-controller-manager',
    image: `${CCM_IMAGE_REPOSITORY}:${options.imageTag}`,
    imagePullPolicy: 'IfNotPresent',
    args: flags,
    livenessProbe: {
      failureThreshold: 8,
      httpGet: { host: '127.0.0.1', path: '/healthz', port: 10258, scheme: 'HTTPS' },
      initialDelaySeconds: 10,
      periodSeconds: 10,
      timeoutSeconds: 15,
    },
    resources: { requests: { cpu: '200m' } },
    volumeMounts: [{ name: 'kubeconfig', mountPath: kubeconfig, readOnly: true }],
  };
  const pod: JsonRecord = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'cloud-controller-manager',
      namespace: 'kube-system',
      labels: { component: 'cloud-controller-manager', tier: 'control-plane' },
    },
    spec: {
      containers: [container],
      hostNetwork: true,
      priorityClassName: 'system-node-critical',
      securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
      volumes: [{ name: 'kubeconfig', hostPath: { path: kubeconfig, type: 'FileOrCreate' } }],
    },
  };
  const cloudConfig = lastFlagValue(kcmFlags, 'cloud-config');
  if (cloudConfig)
    withHostPath(pod, container, {
      name: 'cloud-config',
      path: cloudConfig,
      readOnly: true,
      type: 'FileOrCreate',
    });
  if (options.leaderMigration)
    withHostPath(pod, container, {
      name: LEADER_MIGRATION_VOLUME,
      path: LEADER_MIGRATION_FILE,
      readOnly: true,
      type: 'File',
    });
  return pod;
}

export function isCcmPod(value: unknown): boolean {
  return (
    isRecord(value) &&
    isRecord(value.metadata) &&
    /cloud-controller-manager/.test(String(value.metadata.name ?? ''))
  );
}
