/**
 * The kubeadm plan: seed 003 (Kubernetes, "Migrate Replicated Control Plane To Use Cloud Controller
 * Manager") applied to static pods, node by node: grant the migration lease, enable leader migration on the
 * KCMs with an explicit configuration, add the CCM static pod, roll the control plane to KCM N+1 with the
 * external provider, then (optionally) disable leader migration on the CCM.
 */
import { stringify } from 'yaml';
import { InputError } from '../../../errors/index.js';
import type { MigrationPhase } from '../../leader-migration/index.js';
import type { Artifact, Change, MigrationPlan, PlanFinding, PlanStep } from '../../plan/plan-types.js';
import type { PlanOptions, StepOptions } from '../distro.js';
import { stepArtifactPath } from '../shared/definition-edit.js';
import { boolFlag, lastFlagValue } from '../shared/flag-list.js';
import { verifyProviderIdsStep } from '../shared/common-steps.js';
import { migrationLeasePatch, revokeMigrationLeasePatch } from '../shared/migration-lease-rbac.js';
import {
  ccmImage,
  ccmTags,
  csiMigrationFindings,
  nothingToDoPlan,
  rejectForeignOptions,
} from '../shared/plan-common.js';
import { gates } from '../shared/plan-building.js';
import { checkCurrentVersion, checkInTreeExists, resolveTarget } from '../shared/version-policy.js';
import { locate } from '../shared/yaml-source.js';
import { CCM_MANIFEST_PATH, CCM_USER, KCM_MANIFEST_PATH, LEADER_MIGRATION_FILE } from './ccm-static-pod.js';
import type { KubeadmDefinition } from './kubeadm-cluster.js';
import {
  advance,
  kubeletAndKubeadmConfigChange,
  manifestState,
  writeFile,
  type FileState,
} from './manifest-files.js';
import {
  ccmClusterRbac,
  kubeadmFindings,
  leaderMigrationFile,
  releasesInvolved,
} from './kubeadm-artifacts.js';
import { kubeadmApplyStep } from './kubeadm-steps.js';
import { containers, flagsOf } from './static-pod.js';

const SEED_003 = 'seed 003 (Kubernetes, "Migrate Replicated Control Plane To Use Cloud Controller Manager")';

export function planKubeadm(def: KubeadmDefinition, options: PlanOptions): MigrationPlan {
  rejectForeignOptions('kubeadm', options);
  const { kcm } = def;
  const kcmContainer = containers(kcm.pod)[kcm.containerIndex]!;
  const kcmFlags = flagsOf(kcmContainer);
  const versionLocation = locate(kcm.parsed, kcm.docIndex, [
    'spec',
    'containers',
    kcm.containerIndex,
    'image',
  ]);
  checkCurrentVersion('kubeadm', def.kubernetesVersion, versionLocation);
  const provider = lastFlagValue(kcmFlags, 'cloud-provider');
  const kcmMigration = boolFlag(kcmFlags, 'enable-leader-migration') ?? false;
  if (provider === 'external' && !kcmMigration) {
    return nothingToDoPlan(
      def,
      'kube-controller-manager runs with --cloud-provider=external and without leader migration: the cluster already uses the external provider',
    );
  }
  if (provider !== 'aws' && provider !== 'external') {
    throw new InputError(
      'UP-PLAN-NOT-AWS',
      `${kcm.file.path}: kube-controller-manager does not use the AWS cloud provider`,
      {
        location: locate(
          kcm.parsed,
          kcm.docIndex,
          ['spec', 'containers', kcm.containerIndex],
          provider ?? '(no --cloud-provider)',
        ),
        hint: 'uproot migrates control planes whose kube-controller-manager runs --cloud-provider=aws',
      },
    );
  }
  if (provider === 'aws') checkInTreeExists(def.kubernetesVersion, versionLocation, '--cloud-provider=aws');

  const versions = resolveTarget('kubeadm', def.kubernetesVersion, options.targetVersion);
  const tags = ccmTags('kubeadm', versions, options.ccmImageTag);
  const withNodeIpam = options.withNodeIpam ?? false;
  const stepOptions: StepOptions = {
    currentVersion: versions.current.raw,
    targetVersion: versions.target.raw,
    ccmInstallTag: tags.installTag,
    ccmTargetTag: tags.targetTag,
    leaderMigrationConfig: 'explicit',
    decisions: { withNodeIpam, ccmInstall: 'static-pod', upgrade: versions.upgrade },
  };
  const allVersions = releasesInvolved(versions, tags);
  const configYaml = (phase: MigrationPhase): string => leaderMigrationFile(phase, allVersions, withNodeIpam);
  const wildcard = configYaml('wildcard');
  const targetConfig = configYaml('target');

  const artifacts: Artifact[] = [
    {
      path: 'leader-migration/leadermigration-initial.conf',
      description: 'Version N configuration (seed 003, initial form; the wildcard form is used)',
      content: configYaml('initial'),
    },
    {
      path: 'leader-migration/leadermigration-wildcard.conf',
      description: `${LEADER_MIGRATION_FILE} while KCM N runs (wildcard)`,
      content: wildcard,
    },
    {
      path: 'leader-migration/leadermigration-target.conf',
      description: `${LEADER_MIGRATION_FILE} on rolled nodes (N+1, read by the CCM)`,
      content: targetConfig,
    },
  ];
  const steps: PlanStep[] = [];
  const record = (stepId: string, name: string, content: string): void => {
    artifacts.push({
      path: stepArtifactPath(steps.length, stepId, name),
      description: `${name} after step ${stepId}`,
      content,
    });
  };

  // 1. grant-migration-lease
  const rolePatches = [
    migrationLeasePatch('kube-controller-manager'),
    migrationLeasePatch('cloud-controller-manager'),
  ];
  steps.push({
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
    artifacts.push({
      path: `rbac/${patch.target.name.replace(/:+/g, '-')}.patch.json`,
      description: `Merge patch for Role ${patch.target.name}`,
      content: `${JSON.stringify(patch.patch, null, 2)}\n`,
    });

  // 2. enable-leader-migration
  let kcmState = manifestState(kcm, KCM_MANIFEST_PATH)!;
  const kcmN = kcmState;
  kcmState = advance(
    kcmState,
    kcm,
    kubeadmApplyStep('enable-leader-migration', kcmState.object, stepOptions),
  );
  const kcmWithMigration = kcmState;
  const enableChanges: Change[] = [
    writeFile(
      LEADER_MIGRATION_FILE,
      'Write the wildcard LeaderMigrationConfiguration on every control-plane node.',
      '',
      wildcard,
    ),
  ];
  if (kcmWithMigration !== kcmN)
    enableChanges.push(
      writeFile(
        KCM_MANIFEST_PATH,
        'Add --enable-leader-migration, --leader-migration-config and the file mount to kube-controller-manager (kubelet restarts it).',
        kcmN.text,
        kcmWithMigration.text,
      ),
    );
  record('enable-leader-migration', 'kube-controller-manager.yaml', kcmWithMigration.text);
  steps.push({
    id: 'enable-leader-migration',
    title: 'Enable leader migration on kube-controller-manager',
    description: `On each control-plane node, one at a time: save ${LEADER_MIGRATION_FILE}, mount it into kube-controller-manager and add the flags${versions.current.minor === 21 ? ' (and the ControllerManagerLeaderMigration feature gate, alpha in 1.21)' : ''}. The wildcard form lists the controller names of every release involved, so both managers agree.`,
    source: `${SEED_003}, "Initial Leader Migration configuration"`,
    changes: enableChanges,
    gates: [gates.controlPlaneFlags('aws', true), gates.migrationLeaseHeld('kube-controller-manager')],
    undo: {
      description: 'Restore the original manifest on each node and delete the configuration file.',
      changes: [
        writeFile(
          KCM_MANIFEST_PATH,
          'Restore the original kube-controller-manager manifest.',
          kcmWithMigration.text,
          kcmN.text,
        ),
        { type: 'delete-file', description: `Delete ${LEADER_MIGRATION_FILE}.`, path: LEADER_MIGRATION_FILE },
      ],
    },
    optional: false,
  });

  // 3. install-ccm
  const ccmBefore: FileState = manifestState(def.ccm, CCM_MANIFEST_PATH) ?? {
    path: CCM_MANIFEST_PATH,
    object: undefined,
    text: '',
  };
  const ccmInstalledObject = kubeadmApplyStep(
    'install-ccm',
    def.ccm ? ccmBefore.object : kcmWithMigration.object,
    stepOptions,
  );
  let ccmState = advance(ccmBefore, def.ccm, ccmInstalledObject);
  const ccmInstalled = ccmState;
  record('install-ccm', 'cloud-controller-manager.yaml', ccmInstalled.text);
  const { clusterRole, binding } = ccmClusterRbac();
  artifacts.push({
    path: 'rbac/cloud-controller-manager-rbac.yaml',
    description: 'ClusterRole and binding for the CCM static pod',
    content: `${stringify(clusterRole)}---\n${stringify(binding)}`,
  });
  steps.push({
    id: 'install-ccm',
    title: 'Add the cloud-controller-manager static pod',
    description: `On each control-plane node, write ${CCM_MANIFEST_PATH}: image ${ccmImage(tags.installTag)} (pinned to the cluster's minor), the configuration file mounted like the KCM's, --enable-leader-migration and --leader-migration-config. It runs with the KCM's kubeconfig, so the chart's ClusterRole is bound to ${CCM_USER}.`,
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
        ccmBefore.text,
        ccmInstalled.text,
      ),
    ],
    gates: [gates.noOwnershipOverlap()],
    undo: {
      description:
        'Remove the CCM static pod (the KCMs keep the cloud controllers through the migration lease).',
      changes: def.ccm
        ? [
            writeFile(
              CCM_MANIFEST_PATH,
              'Restore the original CCM manifest.',
              ccmInstalled.text,
              ccmBefore.text,
            ),
          ]
        : [{ type: 'delete-file', description: `Delete ${CCM_MANIFEST_PATH}.`, path: CCM_MANIFEST_PATH }],
    },
    optional: false,
  });

  // 4. roll-control-plane
  kcmState = advance(kcmState, kcm, kubeadmApplyStep('roll-control-plane', kcmState.object, stepOptions));
  ccmState = advance(ccmState, def.ccm, kubeadmApplyStep('roll-control-plane', ccmState.object, stepOptions));
  record('roll-control-plane', 'kube-controller-manager.yaml', kcmState.text);
  if (ccmState !== ccmInstalled) record('roll-control-plane', 'cloud-controller-manager.yaml', ccmState.text);
  const rollChanges: Change[] = [
    writeFile(
      LEADER_MIGRATION_FILE,
      'Replace the configuration with the target form (the CCM reads it; KCM N+1 does not).',
      wildcard,
      targetConfig,
    ),
    writeFile(
      KCM_MANIFEST_PATH,
      `kube-controller-manager N+1: --cloud-provider=external, no leader migration${withNodeIpam ? ', --controllers with -nodeipam' : ''}${versions.upgrade ? `, image ${versions.target.raw}` : ''}.`,
      kcmWithMigration.text,
      kcmState.text,
    ),
  ];
  if (ccmState !== ccmInstalled)
    rollChanges.push(
      writeFile(
        CCM_MANIFEST_PATH,
        `Move the CCM to ${tags.targetTag} with the node.`,
        ccmInstalled.text,
        ccmState.text,
      ),
    );
  // kube-apiserver manifests differ per node (--advertise-address), and a node command only writes whole
  // files: its flag is part of the person's step, never one node's file copied to all.
  rollChanges.push(kubeletAndKubeadmConfigChange());
  steps.push({
    id: 'roll-control-plane',
    title: 'Roll the control plane to kube-controller-manager N+1 with the external provider',
    description:
      'One control-plane node at a time: KCM N+1 runs --cloud-provider=external without leader migration (it no longer runs the cloud controllers, so it must not take part), the CCM stays. Migrated controllers run in whichever manager holds the migration lease; never in two at once.',
    source: `${SEED_003}, "Deploy Cloud Controller Manager" and "Upgrade Control Plane"`,
    changes: rollChanges,
    gates: [
      gates.controlPlaneFlags('external', false),
      gates.migrationLeaseHeld('cloud-controller-manager'),
      gates.nodesInitialized(),
      gates.loadBalancersKept(),
      gates.noOwnershipOverlap(),
    ],
    undo: {
      description:
        'Rollback (seed 003): put back KCM N with leader migration enabled, one node at a time, replacing N+1 nodes until only version N remains; restore the wildcard configuration.',
      changes: [
        // The configuration first: KCM N reads it when it starts, and must read the wildcard form.
        writeFile(LEADER_MIGRATION_FILE, 'Restore the wildcard configuration.', targetConfig, wildcard),
        writeFile(
          KCM_MANIFEST_PATH,
          'Restore kube-controller-manager N with leader migration.',
          kcmState.text,
          kcmWithMigration.text,
        ),
        ...(ccmState !== ccmInstalled
          ? [
              writeFile(
                CCM_MANIFEST_PATH,
                'Restore the CCM at the install tag.',
                ccmState.text,
                ccmInstalled.text,
              ),
            ]
          : []),
        kubeletAndKubeadmConfigChange('aws'),
      ],
    },
    optional: false,
  });

  // 5. disable-leader-migration
  const ccmBeforeDisable = ccmState;
  ccmState = advance(
    ccmState,
    def.ccm,
    kubeadmApplyStep('disable-leader-migration', ccmState.object, stepOptions),
  );
  record('disable-leader-migration', 'cloud-controller-manager.yaml', ccmState.text);
  steps.push({
    id: 'disable-leader-migration',
    title: 'Disable leader migration on the CCM (optional)',
    description: `Remove --enable-leader-migration, --leader-migration-config and the mount from the CCM on each node, then delete ${LEADER_MIGRATION_FILE}. Re-enabling it later (for a rollback) means restoring the file, the mount and the flags.`,
    source: `${SEED_003}, "(Optional) Disable Leader Migration"`,
    changes: [
      writeFile(CCM_MANIFEST_PATH, 'CCM without leader migration.', ccmBeforeDisable.text, ccmState.text),
      { type: 'delete-file', description: `Delete ${LEADER_MIGRATION_FILE}.`, path: LEADER_MIGRATION_FILE },
    ],
    gates: [gates.noOwnershipOverlap()],
    undo: {
      description: 'Re-enable leader migration on the CCM.',
      changes: [
        writeFile(LEADER_MIGRATION_FILE, 'Restore the target configuration.', '', targetConfig),
        writeFile(CCM_MANIFEST_PATH, 'CCM with leader migration.', ccmState.text, ccmBeforeDisable.text),
      ],
    },
    optional: true,
  });

  steps.push(verifyProviderIdsStep('seed 002, step 6 (the same check applies)'));

  const findings: PlanFinding[] = [
    ...tags.findings,
    ...kubeadmFindings(def, allVersions, withNodeIpam),
    ...csiMigrationFindings(kcm.pod),
  ];

  return {
    schemaVersion: 'uproot.dev/plan/v1',
    distro: 'kubeadm',
    cluster: { name: def.name, source: def.source },
    kubernetes: { current: versions.current.raw, target: versions.target.raw },
    ccm: {
      image: ccmImage(tags.installTag),
      installTag: tags.installTag,
      targetTag: tags.targetTag,
      leaderMigrationConfig: 'explicit',
    },
    outcome: { type: 'migrate' },
    steps,
    findings,
    artifacts,
    decisions: stepOptions.decisions,
  };
}
