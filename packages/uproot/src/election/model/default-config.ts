import { atLeast, type KubernetesVersion } from './kubernetes-version.js';
import {
  ANY_COMPONENT,
  MIGRATION_LEASE_NAME,
  type LeaderMigrationConfiguration,
} from './leader-migration-config.js';

/**
 * DefaultLeaderMigrationConfiguration (1.22+): used when --enable-leader-migration is set without
 * --leader-migration-config. KCM and CCM of the same version get the same object. Its names changed in 1.28
 * to route-controller/service-controller/cloud-node-lifecycle-controller, which match only
 * cloud-node-lifecycle-controller among the canonical names (leader-migration reference §2, §6).
 * Returns undefined before 1.22, where there is no default and a file is required.
 */
export function defaultLeaderMigrationConfiguration(
  version: KubernetesVersion,
): LeaderMigrationConfiguration | undefined {
  if (!atLeast(version, 1, 22)) return undefined;
  const names = atLeast(version, 1, 28)
    ? ['route-controller', 'service-controller', 'cloud-node-lifecycle-controller']
    : ['route', 'service', 'cloud-node-lifecycle'];
  return {
    leaderName: MIGRATION_LEASE_NAME,
    resourceLock: 'leases',
    controllerLeaders: names.map((name) => ({ name, component: ANY_COMPONENT })),
  };
}
