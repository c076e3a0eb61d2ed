/**
 * What `uproot fleet migrate --as-jobs` creates in Rancher's local cluster, and `uproot fleet manifests` prints
 * for GitOps: a namespace uproot owns, a ServiceAccount, a least-privilege Role (and RoleBinding) in every
 * namespace holding selected Clusters, and one Job per cluster running `uproot migrate` for it. The Job reaches
 * Rancher with its own projected service-account token and the downstream cluster through Rancher's
 * kubeconfig Secret by reference: no kubeconfig, token or Secret content is ever part of a Job spec.
 */
import type { RancherClusterRef } from '../distros/rke2/cluster-ref.js';
import { clusterKey } from './fleet-cluster.js';

type Obj = Record<string, unknown>;

export const FLEET_NAMESPACE = 'uproot-system';
export const FLEET_SERVICE_ACCOUNT = 'uproot-fleet';
export const FLEET_ROLE = 'uproot-fleet-migrate';
/** Where the Job mounts its projected token, and the variable telling uproot so. */
export const SERVICEACCOUNT_MOUNT = '/var/run/secrets/uproot/serviceaccount';
export const SERVICEACCOUNT_DIR_ENV = 'UPROOT_SERVICEACCOUNT_DIR';
/** The only writable place in the container (read-only root filesystem): the local journal copy goes here. */
export const JOB_TMP = '/tmp';

export const LABELS = {
  managedBy: 'app.kubernetes.io/managed-by',
  component: 'app.kubernetes.io/component',
  cluster: 'uproot.dev/cluster',
  clusterNamespace: 'uproot.dev/cluster-namespace',
} as const;
export const JOB_COMPONENT = 'fleet-migrate';
/** Selects every migration Job uproot made. */
export const JOB_SELECTOR = `${LABELS.managedBy}=uproot,${LABELS.component}=${JOB_COMPONENT}`;

export interface FleetJobSettings {
  readonly namespace: string;
  readonly serviceAccount: string;
  readonly image: string;
  /** Pod failures the Job tolerates before it fails (each replacement pod resumes from the journal). */
  readonly backoffLimit: number;
  /** How long the Job may run at all, from its (last) start. */
  readonly activeDeadlineSeconds: number;
  readonly targetVersion?: string;
  readonly gateTimeoutScale?: number;
  /** Created suspended: the pacer starts it when a slot under --parallel frees. */
  readonly suspend?: boolean;
}

export const DEFAULT_JOB_SETTINGS: Omit<FleetJobSettings, 'image'> = {
  namespace: FLEET_NAMESPACE,
  serviceAccount: FLEET_SERVICE_ACCOUNT,
  backoffLimit: 6,
  activeDeadlineSeconds: 6 * 3600,
};

/** A cluster a Job migrates, with the names its Role grants (computed where they are defined). */
export interface JobCluster {
  readonly ref: RancherClusterRef;
  readonly kubeconfigSecret: string;
  /** The journal ConfigMap and lock Lease beside the Cluster (src/engine/journal/journal-location.ts). */
  readonly journal: string;
  readonly lock: string;
}

/** FNV-1a, 32 bits, as 8 hex digits: short stable suffixes for names that must fit in 63 characters. */
function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/**
 * The Job's name: `uproot-<cluster>`, with a hash of NAMESPACE/NAME when the Cluster is not in fleet-default or
 * the name would pass 63 characters (a Job's name becomes its pods' `job-name` label, a 63-character value).
 */
export function jobNameFor(ref: RancherClusterRef): string {
  const plain = `uproot-${ref.name}`;
  if (ref.namespace === 'fleet-default' && plain.length <= 63) return plain;
  const hash = shortHash(clusterKey(ref));
  return `${plain.slice(0, 63 - 9).replace(/[-.]+$/, '')}-${hash}`;
}

function labelsFor(ref: RancherClusterRef): Record<string, string> {
  return {
    [LABELS.managedBy]: 'uproot',
    [LABELS.component]: JOB_COMPONENT,
    [LABELS.cluster]: ref.name.slice(0, 63),
    [LABELS.clusterNamespace]: ref.namespace.slice(0, 63),
  };
}

export function fleetNamespace(settings: Pick<FleetJobSettings, 'namespace'>): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: settings.namespace,
      labels: {
        [LABELS.managedBy]: 'uproot',
        // The Jobs' pods run as non-root without privilege: the restricted Pod Security level admits them.
        'pod-security.kubernetes.io/enforce': 'restricted',
      },
    },
  };
}

export function fleetServiceAccount(settings: Pick<FleetJobSettings, 'namespace' | 'serviceAccount'>): Obj {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: {
      name: settings.serviceAccount,
      namespace: settings.namespace,
      labels: { [LABELS.managedBy]: 'uproot' },
    },
    automountServiceAccountToken: false,
  };
}

const sorted = (names: Iterable<string>): string[] => [...new Set(names)].sort();

/**
 * The Role in one namespace of Clusters: read and edit those Clusters, read their kubeconfig Secrets, and keep
 * their journals and locks, each by name; `create` cannot be limited by name (RBAC authorizes a create before
 * the object has one), so it is granted for ConfigMaps and Leases in that namespace only.
 */
export function fleetRole(
  settings: Pick<FleetJobSettings, 'namespace' | 'serviceAccount'>,
  namespace: string,
  clusters: readonly JobCluster[],
): Obj[] {
  const here = clusters.filter((c) => c.ref.namespace === namespace);
  const rule = (apiGroup: string, resource: string, verbs: string[], names?: Iterable<string>): Obj => ({
    apiGroups: [apiGroup],
    resources: [resource],
    verbs,
    ...(names ? { resourceNames: sorted(names) } : {}),
  });
  const role: Obj = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: FLEET_ROLE, namespace, labels: { [LABELS.managedBy]: 'uproot' } },
    rules: [
      rule(
        'provisioning.cattle.io',
        'clusters',
        ['get', 'update', 'patch'],
        here.map((c) => c.ref.name),
      ),
      rule(
        '',
        'secrets',
        ['get'],
        here.map((c) => c.kubeconfigSecret),
      ),
      rule(
        '',
        'configmaps',
        ['get', 'update', 'patch'],
        here.map((c) => c.journal),
      ),
      rule('', 'configmaps', ['create']),
      rule(
        'coordination.k8s.io',
        'leases',
        ['get', 'update', 'patch'],
        here.map((c) => c.lock),
      ),
      rule('coordination.k8s.io', 'leases', ['create']),
    ],
  };
  const binding: Obj = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: FLEET_ROLE, namespace, labels: { [LABELS.managedBy]: 'uproot' } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: FLEET_ROLE },
    subjects: [{ kind: 'ServiceAccount', name: settings.serviceAccount, namespace: settings.namespace }],
  };
  return [role, binding];
}

/** The arguments of `uproot migrate` in a cluster's Job. */
export function jobArgs(settings: FleetJobSettings, ref: RancherClusterRef): string[] {
  return [
    'migrate',
    '--cluster',
    clusterKey(ref),
    '--rancher-in-cluster',
    '--downstream-from-rancher',
    '--yes',
    // The first pod starts the migration; a pod that replaces a dead one continues it from the journal.
    '--auto-resume',
    // Preflight ran before the Job was made (`fleet migrate` skips a cluster that fails it); the Job then needs
    // no AWS credentials at all.
    '--skip-preflight',
    '--state-dir',
    `${JOB_TMP}/uproot`,
    ...(settings.targetVersion ? ['--target-version', settings.targetVersion] : []),
    ...(settings.gateTimeoutScale ? ['--gate-timeout-scale', String(settings.gateTimeoutScale)] : []),
  ];
}

/** One cluster's migration Job. */
export function migrationJob(settings: FleetJobSettings, cluster: JobCluster): Obj {
  const labels = labelsFor(cluster.ref);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: jobNameFor(cluster.ref),
      namespace: settings.namespace,
      labels,
      annotations: { [LABELS.cluster]: clusterKey(cluster.ref) },
    },
    spec: {
      backoffLimit: settings.backoffLimit,
      activeDeadlineSeconds: settings.activeDeadlineSeconds,
      ...(settings.suspend ? { suspend: true } : {}),
      podFailurePolicy: {
        rules: [
          // uproot found something failing (a gate, preflight: exit 1) or has a bug (3): another pod would find
          // the same, so the Job fails at once and says why. Anything else (killed: 137, interrupted: 130,
          // the lock still held by a dead pod: 2) counts against backoffLimit, and the next pod resumes.
          { action: 'FailJob', onExitCodes: { containerName: 'migrate', operator: 'In', values: [1, 3] } },
          // A pod evicted from its node (a drain of the local cluster) does not count at all.
          { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] },
        ],
      },
      template: {
        metadata: { labels },
        spec: podSpec(settings, cluster.ref),
      },
    },
  };
}

function podSpec(settings: FleetJobSettings, ref: RancherClusterRef): Obj {
  return {
    serviceAccountName: settings.serviceAccount,
    automountServiceAccountToken: false,
    // A pod that dies is not restarted in place: the Job makes a new one, which resumes from the journal.
    restartPolicy: 'Never',
    securityContext: {
      runAsNonRoot: true,
      runAsUser: 10001,
      runAsGroup: 10001,
      seccompProfile: { type: 'RuntimeDefault' },
    },
    containers: [
      {
        name: 'migrate',
        image: settings.image,
        command: ['uproot'],
        args: jobArgs(settings, ref),
        env: [
          { name: SERVICEACCOUNT_DIR_ENV, value: SERVICEACCOUNT_MOUNT },
          { name: 'HOME', value: JOB_TMP },
        ],
        resources: { requests: { cpu: '100m', memory: '192Mi' }, limits: { memory: '512Mi' } },
        securityContext: {
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        },
        volumeMounts: [
          { name: 'tmp', mountPath: JOB_TMP },
          { name: 'rancher-token', mountPath: SERVICEACCOUNT_MOUNT, readOnly: true },
        ],
      },
    ],
    volumes: [
      { name: 'tmp', emptyDir: { sizeLimit: '64Mi' } },
      {
        // What automounting would give, made explicit: a short-lived token for this pod only, the cluster's CA
        // and the namespace (kubernetes/kubernetes plugin/pkg/admission/serviceaccount/admission.go).
        name: 'rancher-token',
        projected: {
          sources: [
            { serviceAccountToken: { path: 'token', expirationSeconds: 3600 } },
            { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            {
              downwardAPI: { items: [{ path: 'namespace', fieldRef: { fieldPath: 'metadata.namespace' } }] },
            },
          ],
        },
      },
    ],
  };
}

/** Everything, in the order to apply it: namespace, account, Roles and bindings, Jobs. */
export function fleetManifests(settings: FleetJobSettings, clusters: readonly JobCluster[]): Obj[] {
  const namespaces = sorted(clusters.map((c) => c.ref.namespace));
  return [
    fleetNamespace(settings),
    fleetServiceAccount(settings),
    ...namespaces.flatMap((ns) => fleetRole(settings, ns, clusters)),
    ...clusters.map((c) => migrationJob(settings, c)),
  ];
}
