/**
 * The kubeadm plan's steps (seed 003 on static pods): each adds the node files it leaves behind, its other
 * artifacts and the step with its undo to the plan, in the order the plan lists them.
 */
import { stringify } from 'yaml';
import type { Change } from '../../model/plan-types.js';
import { disableLeaderMigrationStep } from '../shared/common-steps.js';
import { migrationLeasePatch, revokeMigrationLeasePatch } from '../shared/migration-lease-rbac.js';
import type { PlanAssembly } from '../shared/plan-assembly.js';
import { gates } from '../shared/plan-building.js';
import { ccmImage, type CcmTags } from '../shared/plan-common.js';
import type { VersionPlan } from '../shared/version-policy.js';
import { CCM_MANIFEST_PATH, CCM_USER, KCM_MANIFEST_PATH, LEADER_MIGRATION_FILE } from './ccm-static-pod.js';
import { ccmClusterRbac, type LeaderMigrationTexts } from './kubeadm-artifacts.js';
import { kubeadmUpgradeChange } from './kubeadm-journey.js';
import { NO_DOWNGRADE } from '../shared/journey-steps.js';
import { kubeletAndKubeadmConfigChange, writeFile, type ManifestProgression } from './manifest-files.js';

const SEED_003 = 'seed 003 (Kubernetes, "Migrate Replicated Control Plane To Use Cloud Controller Manager")';
const KCM_FILE = 'kube-controller-manager.yaml';
const CCM_FILE = 'cloud-controller-manager.yaml';

export interface KubeadmStepContext {
  readonly files: ManifestProgression;
  readonly config: LeaderMigrationTexts;
  readonly versions: VersionPlan;
  readonly tags: CcmTags;
  readonly withNodeIpam: boolean;
  /** The cluster already has a CCM manifest (install-ccm edits it rather than creating one). */
  readonly hadCcm: boolean;
}

function deleteFile(path: string): Change {
  return { type: 'delete-file', description: `Delete ${path}.`, path };
}

/** Both leader-locking Roles get the migration lease; their merge patches are artifacts too. */
export function addGrantMigrationLease(plan: PlanAssembly): void {
  const rolePatches = [
    migrationLeasePatch('kube-controller-manager'),
    migrationLeasePatch('cloud-controller-manager'),
  ];
  plan.addStep({
    id: 'grant-migration-lease',
    title: 'Grant access to the migration lease',
    description:
      "Both leader-locking Roles get the seed's rule for the lease cloud-provider-extraction-migration. A merge patch replaces `rules`, so each patch carries the full list (the role's rules plus the new one); the engine re-applies the rule to the live Role, keeping rules added by anyone.",
    source: `${SEED_003}, "Grant access to Migration Lease"`,
    changes: rolePatches,
    gates: [gates.migrationLeaseRbac(CCM_USER)],
    undo: {
      description: 'Remove the migration-lease rule from both Roles.',
      changes: [
        revokeMigrationLeasePatch('kube-controller-manager'),
        revokeMigrationLeasePatch('cloud-controller-manager'),
      ],
    },
    optional: false,
  });
  for (const patch of rolePatches)
    plan.addArtifact({
      path: `rbac/${patch.target.name.replace(/:+/g, '-')}.patch.json`,
      description: `Merge patch for Role ${patch.target.name}`,
      content: `${JSON.stringify(patch.patch, null, 2)}\n`,
    });
}

export function addEnableLeaderMigration(plan: PlanAssembly, ctx: KubeadmStepContext): void {
  const { original, withMigration } = ctx.files.kcm;
  const changes: Change[] = [
    writeFile(
      LEADER_MIGRATION_FILE,
      'Write the wildcard LeaderMigrationConfiguration on every control-plane node.',
      '',
      ctx.config.wildcard,
    ),
  ];
  if (withMigration !== original)
    changes.push(
      writeFile(
        KCM_MANIFEST_PATH,
        'Add --enable-leader-migration, --leader-migration-config and the file mount to kube-controller-manager (kubelet restarts it).',
        original.text,
        withMigration.text,
      ),
    );
  plan.addFileAfterStep('enable-leader-migration', KCM_FILE, withMigration.text);
  plan.addStep({
    id: 'enable-leader-migration',
    title: 'Enable leader migration on kube-controller-manager',
    description: `On each control-plane node, one at a time: save ${LEADER_MIGRATION_FILE}, mount it into kube-controller-manager and add the flags${ctx.versions.current.minor === 21 ? ' (and the ControllerManagerLeaderMigration feature gate, alpha in 1.21)' : ''}. The wildcard form lists the controller names of every release involved, so both managers agree.`,
    source: `${SEED_003}, "Initial Leader Migration configuration"`,
    changes,
    gates: [gates.controlPlaneFlags('aws', true), gates.migrationLeaseHeld('kube-controller-manager')],
    undo: {
      description: 'Restore the original manifest on each node and delete the configuration file.',
      changes: [
        writeFile(
          KCM_MANIFEST_PATH,
          'Restore the original kube-controller-manager manifest.',
          withMigration.text,
          original.text,
        ),
        deleteFile(LEADER_MIGRATION_FILE),
      ],
    },
    optional: false,
  });
}

/** The CCM static pod, and the ClusterRole it needs bound to the KCM identity it runs with. */
export function addInstallCcm(plan: PlanAssembly, ctx: KubeadmStepContext): void {
  const { before, installed } = ctx.files.ccm;
  plan.addFileAfterStep('install-ccm', CCM_FILE, installed.text);
  const { clusterRole, binding } = ccmClusterRbac();
  plan.addArtifact({
    path: 'rbac/cloud-controller-manager-rbac.yaml',
    description: 'ClusterRole and binding for the CCM static pod',
    content: `${stringify(clusterRole)}---\n${stringify(binding)}`,
  });
  plan.addStep({
    id: 'install-ccm',
    title: 'Add the cloud-controller-manager static pod',
    description: `On each control-plane node, write ${CCM_MANIFEST_PATH}: image ${ccmImage(ctx.tags.installTag)} (pinned to the cluster's minor), the configuration file mounted like the KCM's, --enable-leader-migration and --leader-migration-config. It runs with the KCM's kubeconfig, so the chart's ClusterRole is bound to ${CCM_USER}.`,
    source: `${SEED_003}, "Deploy Cloud Controller Manager"`,
    changes: [
      {
        type: 'apply-object',
        description: 'Create the system:cloud-controller-manager ClusterRole (seed 004 rules).',
        api: 'downstream',
        object: clusterRole,
      },
      {
        type: 'apply-object',
        description: `Bind it to ${CCM_USER}, the identity the CCM static pod uses.`,
        api: 'downstream',
        object: binding,
      },
      writeFile(
        CCM_MANIFEST_PATH,
        'Write the cloud-controller-manager static pod manifest.',
        before.text,
        installed.text,
      ),
    ],
    gates: [
      gates.ccmStaticPods({ imageTag: ctx.tags.installTag, leaderMigration: true }),
      gates.noOwnershipOverlap(),
    ],
    undo: {
      description:
        'Remove the CCM static pod (the KCMs keep the cloud controllers through the migration lease).',
      changes: ctx.hadCcm
        ? [writeFile(CCM_MANIFEST_PATH, 'Restore the original CCM manifest.', installed.text, before.text)]
        : [deleteFile(CCM_MANIFEST_PATH)],
    },
    optional: false,
  });
}

function ccmMove(ctx: KubeadmStepContext): Change {
  return writeFile(
    CCM_MANIFEST_PATH,
    `Move the CCM to ${ctx.tags.targetTag} with the node (before KCM N+1: the KCM leads the migrated controllers meanwhile).`,
    ctx.files.ccm.installed.text,
    ctx.files.ccm.rolled.text,
  );
}

/**
 * KCM N+1 with the external provider, node by node; the CCM moves along where the minor changes, before KCM
 * N+1, while the KCM still holds the migration lease: restarting the CCM's leader then hands over only its
 * main lease. After KCM N+1 the CCM's leader holds both leases, and a new leader must win the main lease
 * before it even tries the migration lease, whose expiry it only then starts to observe (client-go
 * leaderelection.go: observedTime is local), so the migrated controllers would wait two lease durations.
 */
export function addRollControlPlane(plan: PlanAssembly, ctx: KubeadmStepContext): void {
  const { kcm, ccm } = ctx.files;
  const { wildcard, target } = ctx.config;
  const ccmMoves = ccm.rolled !== ccm.installed;
  plan.addFileAfterStep('roll-control-plane', KCM_FILE, kcm.rolled.text);
  if (ccmMoves) plan.addFileAfterStep('roll-control-plane', CCM_FILE, ccm.rolled.text);
  const changes: Change[] = [
    writeFile(
      LEADER_MIGRATION_FILE,
      'Replace the configuration with the target form (the CCM reads it; KCM N+1 does not).',
      wildcard,
      target,
    ),
    ...(ccmMoves ? [ccmMove(ctx)] : []),
    writeFile(
      KCM_MANIFEST_PATH,
      `kube-controller-manager N+1: --cloud-provider=external, no leader migration${ctx.withNodeIpam ? ', --controllers with -nodeipam' : ''}${ctx.versions.upgrade ? `, image ${ctx.versions.target.raw}` : ''}.`,
      kcm.withMigration.text,
      kcm.rolled.text,
    ),
  ];
  // kube-apiserver manifests differ per node (--advertise-address), and a node command only writes whole
  // files: its flag is part of the person's step, never one node's file copied to all. With an upgrade the
  // person moves kube-apiserver (and the kubelets) first, as KCM N+1 must not be newer than it.
  if (ctx.versions.upgrade) {
    changes.splice(
      1,
      0,
      kubeadmUpgradeChange({
        release: ctx.versions.target.raw,
        toExternal: true,
        thenUproot: `${ccmMoves ? `the CCM (${ctx.tags.targetTag}), then ` : ''}kube-controller-manager.yaml (${ctx.versions.target.raw}, external, no leader migration)`,
      }),
    );
  } else changes.push(kubeletAndKubeadmConfigChange());
  plan.addStep({
    id: 'roll-control-plane',
    title: 'Roll the control plane to kube-controller-manager N+1 with the external provider',
    description:
      'One control-plane node at a time: KCM N+1 runs --cloud-provider=external without leader migration (it no longer runs the cloud controllers, so it must not take part), the CCM stays. Migrated controllers run in whichever manager holds the migration lease; never in two at once.',
    source: `${SEED_003}, "Deploy Cloud Controller Manager" and "Upgrade Control Plane"`,
    changes,
    gates: [
      ...(ctx.versions.upgrade ? [gates.kubernetesVersion('kubeadm', ctx.versions.target.raw)] : []),
      gates.controlPlaneFlags('external', false),
      gates.migrationLeaseHeld('cloud-controller-manager'),
      ...(ccmMoves ? [gates.ccmStaticPods({ imageTag: ctx.tags.targetTag, leaderMigration: true })] : []),
      gates.nodesInitialized(),
      gates.loadBalancersKept(),
      gates.noOwnershipOverlap(),
    ],
    undo: {
      description: ctx.versions.upgrade
        ? `Rollback (seed 003) is impossible once the control plane runs ${ctx.versions.target.raw}: ${NO_DOWNGRADE}`
        : 'Rollback (seed 003): put back KCM N with leader migration enabled, one node at a time, replacing N+1 nodes until only version N remains; restore the wildcard configuration.',
      changes: [
        // The configuration first: KCM N reads it when it starts, and must read the wildcard form.
        writeFile(LEADER_MIGRATION_FILE, 'Restore the wildcard configuration.', target, wildcard),
        writeFile(
          KCM_MANIFEST_PATH,
          'Restore kube-controller-manager N with leader migration.',
          kcm.rolled.text,
          kcm.withMigration.text,
        ),
        ...(ccmMoves
          ? [
              writeFile(
                CCM_MANIFEST_PATH,
                'Restore the CCM at the install tag.',
                ccm.rolled.text,
                ccm.installed.text,
              ),
            ]
          : []),
        kubeletAndKubeadmConfigChange('aws'),
      ],
    },
    optional: false,
  });
}

export function addDisableLeaderMigration(plan: PlanAssembly, ctx: KubeadmStepContext): void {
  const { rolled, final } = ctx.files.ccm;
  plan.addFileAfterStep('disable-leader-migration', CCM_FILE, final.text);
  plan.addStep(
    disableLeaderMigrationStep({
      description: `Remove --enable-leader-migration, --leader-migration-config and the mount from the CCM on each node, then delete ${LEADER_MIGRATION_FILE}. Re-enabling it later (for a rollback) means restoring the file, the mount and the flags.`,
      source: `${SEED_003}, "(Optional) Disable Leader Migration"`,
      changes: [
        writeFile(CCM_MANIFEST_PATH, 'CCM without leader migration.', rolled.text, final.text),
        deleteFile(LEADER_MIGRATION_FILE),
      ],
      gates: [gates.ccmStaticPods({ leaderMigration: false }), gates.noOwnershipOverlap()],
      undo: {
        description: 'Re-enable leader migration on the CCM.',
        changes: [
          writeFile(LEADER_MIGRATION_FILE, 'Restore the target configuration.', '', ctx.config.target),
          writeFile(CCM_MANIFEST_PATH, 'CCM with leader migration.', final.text, rolled.text),
        ],
      },
    }),
  );
}
