import { Document } from 'yaml';
import type { KubernetesVersion } from '../model/kubernetes-version.js';
import {
  controllerNameInEra,
  migratableControllers,
  usesCanonicalNames,
} from '../../election/model/index.js';
import {
  ANY_COMPONENT,
  LEADER_MIGRATION_GROUP,
  LEADER_MIGRATION_KIND,
  MIGRATION_LEASE_NAME,
  type LeaderMigrationApiVersion,
  type LeaderMigrationConfiguration,
} from '../../election/model/index.js';

/**
 * The three configurations of the Kubernetes task (seed 003): `initial` assigns the cloud controllers to KCM
 * (version N), `target` to CCM (N+1), `wildcard` to "*" (the same file works on both sides).
 */
export type MigrationPhase = 'initial' | 'target' | 'wildcard';
export const MIGRATION_PHASES: readonly MigrationPhase[] = ['initial', 'target', 'wildcard'];

export interface RenderOptions {
  readonly phase: MigrationPhase;
  /**
   * The versions of every manager that will read the file. Names are listed for each era present, so a 1.26
   * KCM and a 1.28+ CCM agree on what is migrated (names a manager does not have are ignored by it).
   */
  readonly versions: readonly KubernetesVersion[];
  /** Also migrate the Node IPAM controller (seed 003's special case). */
  readonly withNodeIpam?: boolean;
  readonly leaderName?: string;
}

export function renderLeaderMigrationConfiguration(options: RenderOptions): LeaderMigrationConfiguration {
  if (options.versions.length === 0)
    throw new RangeError('renderLeaderMigrationConfiguration needs at least one version');
  const component =
    options.phase === 'initial'
      ? 'kube-controller-manager'
      : options.phase === 'target'
        ? 'cloud-controller-manager'
        : ANY_COMPONENT;
  const eras = [...new Set(options.versions.map((v) => usesCanonicalNames(v)))].sort(); // legacy first
  const names: string[] = [];
  for (const logical of migratableControllers(options.withNodeIpam ?? false)) {
    for (const canonical of eras) {
      const name = controllerNameInEra(logical, canonical);
      if (!names.includes(name)) names.push(name);
    }
  }
  return {
    leaderName: options.leaderName ?? MIGRATION_LEASE_NAME,
    resourceLock: 'leases',
    controllerLeaders: names.map((name) => ({ name, component })),
  };
}

/** The file form. `"*"` is always quoted (unquoted it is a YAML alias and the file fails to load). */
export function leaderMigrationToYaml(
  config: LeaderMigrationConfiguration,
  apiVersion: LeaderMigrationApiVersion = 'v1',
  comment?: string,
): string {
  const body: Record<string, unknown> = {
    kind: LEADER_MIGRATION_KIND,
    apiVersion: `${LEADER_MIGRATION_GROUP}/${apiVersion}`,
    leaderName: config.leaderName,
  };
  if (apiVersion !== 'v1') body.resourceLock = config.resourceLock;
  body.controllerLeaders = config.controllerLeaders.map((l) => ({ name: l.name, component: l.component }));
  const doc = new Document(body);
  if (comment) doc.commentBefore = ` ${comment}`;
  return doc
    .toString({ defaultStringType: 'PLAIN', lineWidth: 0 })
    .replace(/component: \*$/gm, 'component: "*"');
}

/**
 * True when both managers' default configurations migrate the same cloud controllers: both before the 1.28
 * rename, or both after it (then only cloud-node-lifecycle migrates, on both sides, consistently).
 * Across the rename a CCM >= 1.28 runs service and route under its main lease while a <= 1.27 KCM still runs
 * them under the migration lease (reference §6).
 */
export function defaultConfigIsSafe(kcmVersion: KubernetesVersion, ccmVersion: KubernetesVersion): boolean {
  return usesCanonicalNames(kcmVersion) === usesCanonicalNames(ccmVersion);
}

export { ANY_COMPONENT };
