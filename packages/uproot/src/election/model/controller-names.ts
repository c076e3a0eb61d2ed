import { atLeast, type KubernetesVersion } from './kubernetes-version.js';
import type { ManagerComponent } from './leader-migration-config.js';

/**
 * Controller names as each manager keys them, per era. Up to 1.27 managers used short names; from 1.28 the
 * canonical `*-controller` names with the short ones as aliases (k8s.io/cloud-provider names/controller_names.go).
 * Leader-migration entries are compared literally with these keys and never alias-resolved.
 */
export type LogicalController = 'route' | 'service' | 'cloud-node-lifecycle' | 'nodeipam' | 'cloud-node';

const LEGACY: Record<LogicalController, string> = {
  route: 'route',
  service: 'service',
  'cloud-node-lifecycle': 'cloud-node-lifecycle',
  nodeipam: 'nodeipam',
  'cloud-node': 'cloud-node',
};

const CANONICAL: Record<LogicalController, string> = {
  route: 'node-route-controller',
  service: 'service-lb-controller',
  'cloud-node-lifecycle': 'cloud-node-lifecycle-controller',
  nodeipam: 'node-ipam-controller',
  'cloud-node': 'cloud-node-controller',
};

export function usesCanonicalNames(version: KubernetesVersion): boolean {
  return atLeast(version, 1, 28);
}

/** The name a manager of `version` uses for a logical controller. */
export function controllerName(logical: LogicalController, version: KubernetesVersion): string {
  return controllerNameInEra(logical, usesCanonicalNames(version));
}

/** The name in the legacy (<= 1.27) or canonical (>= 1.28) era. */
export function controllerNameInEra(logical: LogicalController, canonical: boolean): string {
  return (canonical ? CANONICAL : LEGACY)[logical];
}

/** Every name, in either era, mapped back to its logical controller (for ledgers and inference). */
export function logicalControllerOf(name: string): LogicalController | undefined {
  for (const table of [LEGACY, CANONICAL]) {
    for (const [logical, n] of Object.entries(table)) if (n === name) return logical as LogicalController;
  }
  return undefined;
}

/** The controllers that move from KCM to CCM (nodeipam only when the provider implements it). */
export function migratableControllers(withNodeIpam: boolean): LogicalController[] {
  return withNodeIpam
    ? ['route', 'service', 'cloud-node-lifecycle', 'nodeipam']
    : ['route', 'service', 'cloud-node-lifecycle'];
}

/** KCM controllers other than the cloud ones (a representative set, used for lint and simulation). */
const KCM_OTHER_LEGACY = [
  'attachdetach',
  'bootstrapsigner',
  'clusterrole-aggregation',
  'cronjob',
  'csrapproving',
  'csrcleaner',
  'csrsigning',
  'daemonset',
  'deployment',
  'disruption',
  'endpoint',
  'endpointslice',
  'endpointslicemirroring',
  'ephemeral-volume',
  'garbagecollector',
  'horizontalpodautoscaling',
  'job',
  'namespace',
  'nodelifecycle',
  'persistentvolume-binder',
  'persistentvolume-expander',
  'podgc',
  'pv-protection',
  'pvc-protection',
  'replicaset',
  'replicationcontroller',
  'resourcequota',
  'root-ca-cert-publisher',
  'serviceaccount',
  'serviceaccount-token',
  'statefulset',
  'tokencleaner',
  'ttl',
  'ttl-after-finished',
];

const KCM_OTHER_CANONICAL = [
  'persistentvolume-attach-detach-controller',
  'bootstrap-signer-controller',
  'clusterrole-aggregation-controller',
  'cronjob-controller',
  'certificatesigningrequest-approving-controller',
  'certificatesigningrequest-cleaner-controller',
  'certificatesigningrequest-signing-controller',
  'daemonset-controller',
  'deployment-controller',
  'disruption-controller',
  'endpoints-controller',
  'endpointslice-controller',
  'endpointslice-mirroring-controller',
  'ephemeral-volume-controller',
  'garbage-collector-controller',
  'horizontal-pod-autoscaler-controller',
  'job-controller',
  'namespace-controller',
  'node-lifecycle-controller',
  'persistentvolume-binder-controller',
  'persistentvolume-expander-controller',
  'pod-garbage-collector-controller',
  'persistentvolume-protection-controller',
  'persistentvolumeclaim-protection-controller',
  'replicaset-controller',
  'replicationcontroller-controller',
  'resourcequota-controller',
  'root-ca-certificate-publisher-controller',
  'serviceaccount-controller',
  'serviceaccount-token-controller',
  'statefulset-controller',
  'token-cleaner-controller',
  'ttl-controller',
  'ttl-after-finished-controller',
];

/** The controllers a manager of `version` knows, by the names it keys them with. */
export function controllersOf(component: ManagerComponent, version: KubernetesVersion): string[] {
  const canonical = usesCanonicalNames(version);
  if (component === 'cloud-controller-manager') {
    return (['cloud-node', 'cloud-node-lifecycle', 'service', 'route'] as const).map((c) =>
      controllerName(c, version),
    );
  }
  const cloud = (['route', 'service', 'cloud-node-lifecycle', 'nodeipam'] as const).map((c) =>
    controllerName(c, version),
  );
  return [...(canonical ? KCM_OTHER_CANONICAL : KCM_OTHER_LEGACY), ...cloud];
}

/** The KCM controller that always runs under the main lease, even when migrating. */
export function serviceAccountTokenController(version: KubernetesVersion): string {
  return usesCanonicalNames(version) ? 'serviceaccount-token-controller' : 'serviceaccount-token';
}
