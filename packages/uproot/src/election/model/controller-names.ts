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

/**
 * KCM controllers other than the cloud ones (a representative set, used for lint and simulation), each as
 * [name up to 1.27, canonical name from 1.28]. Upstream: kubernetes cmd/kube-controller-manager/names/
 * controller_names.go (the canonical names) and each app.ControllerDescriptor's aliases (the old names, kept
 * as aliases: e.g. serviceaccount-token for serviceaccount-token-controller).
 */
const KCM_OTHER: readonly (readonly [legacy: string, canonical: string])[] = [
  ['attachdetach', 'persistentvolume-attach-detach-controller'],
  ['bootstrapsigner', 'bootstrap-signer-controller'],
  ['clusterrole-aggregation', 'clusterrole-aggregation-controller'],
  ['cronjob', 'cronjob-controller'],
  ['csrapproving', 'certificatesigningrequest-approving-controller'],
  ['csrcleaner', 'certificatesigningrequest-cleaner-controller'],
  ['csrsigning', 'certificatesigningrequest-signing-controller'],
  ['daemonset', 'daemonset-controller'],
  ['deployment', 'deployment-controller'],
  ['disruption', 'disruption-controller'],
  ['endpoint', 'endpoints-controller'],
  ['endpointslice', 'endpointslice-controller'],
  ['endpointslicemirroring', 'endpointslice-mirroring-controller'],
  ['ephemeral-volume', 'ephemeral-volume-controller'],
  ['garbagecollector', 'garbage-collector-controller'],
  ['horizontalpodautoscaling', 'horizontal-pod-autoscaler-controller'],
  ['job', 'job-controller'],
  ['namespace', 'namespace-controller'],
  ['nodelifecycle', 'node-lifecycle-controller'],
  ['persistentvolume-binder', 'persistentvolume-binder-controller'],
  ['persistentvolume-expander', 'persistentvolume-expander-controller'],
  ['podgc', 'pod-garbage-collector-controller'],
  ['pv-protection', 'persistentvolume-protection-controller'],
  ['pvc-protection', 'persistentvolumeclaim-protection-controller'],
  ['replicaset', 'replicaset-controller'],
  ['replicationcontroller', 'replicationcontroller-controller'],
  ['resourcequota', 'resourcequota-controller'],
  ['root-ca-cert-publisher', 'root-ca-certificate-publisher-controller'],
  ['serviceaccount', 'serviceaccount-controller'],
  ['serviceaccount-token', 'serviceaccount-token-controller'],
  ['statefulset', 'statefulset-controller'],
  ['tokencleaner', 'token-cleaner-controller'],
  ['ttl', 'ttl-controller'],
  ['ttl-after-finished', 'ttl-after-finished-controller'],
];
const KCM_OTHER_LEGACY = KCM_OTHER.map(([legacy]) => legacy);
const KCM_OTHER_CANONICAL = KCM_OTHER.map(([, canonical]) => canonical);
const KCM_OTHER_BY_CANONICAL = new Map(KCM_OTHER.map(([legacy, canonical]) => [canonical, legacy]));

/**
 * The one name every report uses for a controller, whatever manager and era recorded it: the logical name of
 * a cloud controller (KCM 1.26 `service` = CCM 1.27 `service` = CCM 1.28+ `service-lb-controller`, per
 * k8s.io/cloud-provider names/controller_names.go and its CCMControllerAliases), and for the other KCM
 * controllers the pre-1.28 name, which upstream keeps as the alias (`serviceaccount-token-controller` →
 * `serviceaccount-token`). Names outside the tables stand for themselves.
 */
export function logicalControllerName(name: string): string {
  return logicalControllerOf(name) ?? KCM_OTHER_BY_CANONICAL.get(name) ?? name;
}

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
