/** The kubeadm plan's generated objects: leader-migration files, the CCM's RBAC, and the findings. */
import { ccmTagMinor } from '../../ccm/index.js';
import {
  leaderMigrationToYaml,
  renderLeaderMigrationConfiguration,
  type MigrationPhase,
} from '../../leader-migration/index.js';
import { parseKubernetesVersion, type KubernetesVersion } from '../../model/kubernetes-version.js';
import type { PlannedUpgrade } from '../distro.js';
import type { Artifact, PlanFinding } from '../../model/plan-types.js';
import { seedClusterRoleRules } from '../../ccm/chart-values.js';
import { lastFlagValue } from '../../model/flag-list.js';
import { LEADER_LOCKING_ROLE } from '../shared/migration-lease-rbac.js';
import type { CcmTags } from '../shared/plan-common.js';
import type { VersionPlan } from '../shared/version-policy.js';
import { APISERVER_MANIFEST_PATH, CCM_USER, LEADER_MIGRATION_FILE } from './ccm-static-pod.js';
import type { KubeadmDefinition } from './kubeadm-cluster.js';

/**
 * Every controller-manager release that reads the file: KCM N and N+1, the CCM at install and at target, and
 * on a journey the KCM and CCM of every hop.
 */
export function releasesInvolved(
  versions: VersionPlan,
  tags: Pick<CcmTags, 'installTag' | 'targetTag'>,
  hops: readonly PlannedUpgrade[] = [],
): KubernetesVersion[] {
  const ccm = (tag: string): KubernetesVersion => ({
    major: 1,
    minor: ccmTagMinor(tag) ?? versions.current.minor,
    patch: 0,
    raw: tag,
  });
  return [
    versions.current,
    versions.target,
    ccm(tags.installTag),
    ccm(tags.targetTag),
    ...hops.flatMap((hop) => [parseKubernetesVersion(hop.version), ccm(hop.ccmTag)]),
  ];
}

/** /etc/leadermigration.conf for a phase, listing the controller names of every release involved. */
export function leaderMigrationFile(
  phase: MigrationPhase,
  versions: readonly KubernetesVersion[],
  withNodeIpam: boolean,
): string {
  return leaderMigrationToYaml(
    renderLeaderMigrationConfiguration({ phase, versions, withNodeIpam }),
    'v1',
    `uproot: LeaderMigrationConfiguration (${phase}) for ${LEADER_MIGRATION_FILE}; names of every controller-manager release involved`,
  );
}

/** The configuration the managers read: wildcard while KCM N runs, target on rolled nodes. */
export interface LeaderMigrationTexts {
  readonly wildcard: string;
  readonly target: string;
}

/** The configuration in seed 003's forms, and the artifacts that show all three. */
export function leaderMigrationTexts(
  versions: readonly KubernetesVersion[],
  withNodeIpam: boolean,
): LeaderMigrationTexts & { readonly artifacts: Artifact[] } {
  const wildcard = leaderMigrationFile('wildcard', versions, withNodeIpam);
  const target = leaderMigrationFile('target', versions, withNodeIpam);
  return {
    wildcard,
    target,
    artifacts: [
      {
        path: 'leader-migration/leadermigration-initial.conf',
        description: 'Version N configuration (seed 003, initial form; the wildcard form is used)',
        content: leaderMigrationFile('initial', versions, withNodeIpam),
      },
      {
        path: 'leader-migration/leadermigration-wildcard.conf',
        description: `${LEADER_MIGRATION_FILE} while KCM N runs (wildcard)`,
        content: wildcard,
      },
      {
        path: 'leader-migration/leadermigration-target.conf',
        description: `${LEADER_MIGRATION_FILE} on rolled nodes (N+1, read by the CCM)`,
        content: target,
      },
    ],
  };
}

/** The chart's ClusterRole (seed 004 rules) bound to the identity the CCM static pod uses. */
export function ccmClusterRbac(): { clusterRole: Record<string, unknown>; binding: Record<string, unknown> } {
  const name = 'system:cloud-controller-manager';
  return {
    clusterRole: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name },
      rules: seedClusterRoleRules(),
    },
    binding: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: CCM_USER }],
    },
  };
}

export function kubeadmFindings(
  def: KubeadmDefinition,
  versions: readonly KubernetesVersion[],
  withNodeIpam: boolean,
): PlanFinding[] {
  const findings: PlanFinding[] = [
    {
      severity: 'info',
      code: 'leader-migration-explicit-config',
      message: `The configuration file lists the controller names of every release involved (${[...new Set(versions.map((v) => `1.${v.minor}`))].join(', ')}), so KCM and CCM agree across the 1.28 rename.`,
    },
    {
      severity: 'info',
      code: 'ccm-identity',
      message: `kubeadm issues no credentials for a CCM, so the static pod uses the KCM's kubeconfig; the system:cloud-controller-manager ClusterRole is bound to ${CCM_USER}. kubeadm creates no ${LEADER_LOCKING_ROLE['cloud-controller-manager']} Role: if it is missing, its patch has nothing to change and the ClusterRole covers the CCM's leases.`,
    },
  ];
  if (withNodeIpam) {
    findings.push({
      severity: 'info',
      code: 'nodeipam',
      message:
        'Node IPAM moves too: KCM N+1 gets -nodeipam in --controllers, the configuration lists nodeipam (and node-ipam-controller from 1.28), the CCM runs --controllers=*,nodeipam. Check that your cloud-provider-aws release implements it.',
    });
  }
  findings.push({
    severity: 'info',
    code: 'apiserver-by-hand',
    message: `kube-apiserver manifests differ per node (--advertise-address), so roll-control-plane asks you to set --cloud-provider=external in ${APISERVER_MANIFEST_PATH} on each control-plane node rather than writing one file to all.`,
  });
  return findings;
}

/**
 * kubeadm's --cloud-config is a file on each control-plane node; the CCM static pod mounts the same file and
 * reads it with --cloud-config (ccm-static-pod.ts), so every setting is carried as written. uproot does not
 * see the file, so it names the keys that stop applying for the user to check.
 */
export function kubeadmCloudConfigFindings(kcmFlags: readonly string[]): PlanFinding[] {
  const path = lastFlagValue(kcmFlags, 'cloud-config');
  if (path === undefined) return [];
  return [
    {
      severity: 'info',
      code: 'cloud-config-carried',
      message: `${path} is carried into the CCM: its static pod mounts the file as kube-controller-manager does and reads it with --cloud-config=${path}.`,
      field: '--cloud-config',
      hint: `check ${path} for settings the CCM no longer reads (gcfg drops them without a word): DisableStrictZoneCheck from v1.27.1, and any key not in pkg/providers/v1/config/config.go of the CCM release`,
    },
  ];
}
