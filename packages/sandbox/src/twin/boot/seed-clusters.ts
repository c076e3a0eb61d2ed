import { parse } from 'yaml';
import type { Clock } from 'uproot';
import type { Scenario } from '../../scenarios/index.js';
import type { KubeObject } from '../kube/kube-types.js';
import { R, resourceForKind, type TwinKube } from '../kube/twin-kube.js';
import type { ClusterLayout } from '../layout/cluster-layout.js';
import type { DistroVersion } from '../layout/versions.js';
import {
  initialProvisioningCluster,
  RANCHER_NAMESPACE,
  settledStatus,
} from '../rke2/provisioning-cluster.js';
import {
  csiDriver,
  csiDriverNames,
  ebsCsiNodeDaemonSet,
  grantMigrationLease,
  kubeadmCcmRbac,
  loadBalancerService,
  storageObjects,
  workloadDaemonSet,
} from './cluster-objects.js';
import { controllerRbacObjects } from './controller-rbac.js';
import { kubeadmConfigMap } from '../kubeadm/kubeadm-files.js';
import { MANAGEMENT_CLUSTERS, rke1ManagementObjects } from '../rke/rancher-rke1.js';
import { kubeconfigSecretName } from '../rke2/kubeconfig-secret.js';

/**
 * What the clusters hold before anything of the twin runs: the controllers' RBAC, the scenario's
 * migration-lease grant, the kubeadm CCM identity, storage, the EBS CSI driver and the LoadBalancer
 * Services downstream; Rancher's provisioning Cluster (settled at generation 1) in the management cluster.
 */
export function seedClusters(options: {
  readonly scenario: Scenario;
  readonly layout: ClusterLayout;
  readonly version: DistroVersion;
  readonly kube: TwinKube;
  readonly managementKube: TwinKube | undefined;
  readonly clock: Clock;
}): { services: KubeObject[]; provisioningCluster: KubeObject | undefined } {
  const { scenario, layout, kube, managementKube } = options;
  for (const { resource, object } of controllerRbacObjects()) kube.ensure(resource, object);
  if (scenario.rbac.migrationLease === 'granted') grantMigrationLease(kube);
  if (scenario.distribution === 'kubeadm') {
    for (const obj of kubeadmCcmRbac())
      kube.ensure(resourceForKind(kube.store, obj.apiVersion!, obj.kind!)!, obj);
    kube.ensure(
      R.configmaps,
      kubeadmConfigMap(options.version, scenario.cloudProvider === 'in-tree' ? 'aws' : 'external'),
    );
  }
  const zones = layout.subnets.map((s) => s.availabilityZone);
  for (const { resource, object } of storageObjects(scenario, zones)) {
    // Objects seeded with a status (a bound claim) keep it, as on a cluster that has been running.
    if (object.status && !kube.get(resource, object.metadata?.namespace, object.metadata?.name ?? ''))
      kube.put(resource, object);
    else kube.ensure(resource, object);
  }
  if (scenario.workloads.ebsCsiDriver && layout.instances.length > 0)
    kube.ensure(R.daemonsets, ebsCsiNodeDaemonSet());
  for (const name of csiDriverNames(scenario)) kube.ensure(R.csidrivers, csiDriver(name));
  for (const ds of scenario.workloads.daemonSets) kube.ensure(R.daemonsets, workloadDaemonSet(ds));
  const services = scenario.workloads.loadBalancerServices.map((s) =>
    kube.ensure(R.services, loadBalancerService(s)),
  );
  if (!managementKube || scenario.distribution !== 'rke2')
    return { services, provisioningCluster: undefined };
  const provisioningCluster = initialProvisioningCluster(scenario, options.version);
  managementKube.ensure(R.namespaces, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: RANCHER_NAMESPACE },
  });
  managementKube.create(R.provisioningClusters, provisioningCluster);
  managementKube.mutateStatus(R.provisioningClusters, RANCHER_NAMESPACE, scenario.clusterName, (draft) => {
    // Rancher's id of the cluster (c-m-<8 characters>) and the kubeconfig Secret it wrote for it.
    const managementId = `c-m-${fnv8(scenario.clusterName)}`;
    draft.status = settledStatus(
      { clusterName: managementId, clientSecretName: kubeconfigSecretName(scenario.clusterName) },
      1,
      options.clock.now(),
    );
    return draft;
  });
  return { services, provisioningCluster };
}

/**
 * RKE under Rancher: the fleet workspace, the provisioned v3 Cluster (its RKE options from the twin's
 * cluster.yml, applied and Updated) and Rancher's provisioning wrapper of it.
 */
export function seedRancherRke1(
  management: TwinKube,
  scenario: Scenario,
  clusterYml: string,
  now: number,
): void {
  const { clusterName } = scenario;
  management.ensure('management.cattle.io/v3/settings', {
    apiVersion: 'management.cattle.io/v3',
    kind: 'Setting',
    metadata: { name: 'server-version' },
    value: scenario.rke.rancherVersion,
  });
  management.ensure(R.namespaces, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: RANCHER_NAMESPACE },
  });
  const objects = rke1ManagementObjects({
    clusterName,
    namespace: RANCHER_NAMESPACE,
    rke: parse(clusterYml) as Record<string, unknown>,
    now,
  });
  const name = String(objects.cluster.metadata?.name);
  management.create(MANAGEMENT_CLUSTERS, objects.cluster);
  management.mutateStatus(MANAGEMENT_CLUSTERS, undefined, name, (draft) => {
    draft.status = objects.status;
    return draft;
  });
  management.create(R.provisioningClusters, objects.wrapper);
  management.mutateStatus(R.provisioningClusters, RANCHER_NAMESPACE, name, (draft) => {
    draft.status = objects.wrapperStatus;
    return draft;
  });
}

/** Eight hex digits from a name (FNV-1a): a stable stand-in for the random id Rancher gives a cluster. */
function fnv8(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}
