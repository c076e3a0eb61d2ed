/**
 * The kubeadm steps (seed 003) as pure, idempotent transformations of the object each step changes: the
 * leader-locking Role, or a static pod manifest (kube-controller-manager, cloud-controller-manager,
 * kube-apiserver), told apart by their containers. For install-ccm, `current` is the node's KCM manifest
 * (the CCM is derived from it) or an existing CCM manifest (brought to what the migration needs).
 */
import { atLeast, parseKubernetesVersion } from '../../model/kubernetes-version.js';
import type { StepId } from '../../model/plan-types.js';
import { hopOf, type PlannedUpgrade, type StepOptions } from '../distro.js';
import { APISERVER_CLOUD_FLAGS, apiserverDropsCloudFlags } from '../shared/journey-steps.js';
import { addToCommaList, lastFlagValue, setFlag, withoutFlags } from '../../model/flag-list.js';
import { cloneJson, isRecord, type JsonRecord } from '../../model/json-value.js';
import { grantMigrationLease } from '../shared/migration-lease-rbac.js';
import {
  LEADER_MIGRATION_FILE,
  LEADER_MIGRATION_VOLUME,
  isCcmPod,
  renderCcmPod,
  type CcmPodOptions,
} from './ccm-static-pod.js';
import { manifestRole } from './kubeadm-cluster.js';
import { withImageTag } from '../../model/index.js';
import { containers, flagsOf, setFlags, withHostPath, withoutHostPath } from './static-pod.js';

const MIGRATION_FLAGS = ['enable-leader-migration', 'leader-migration-config'];

function needsFeatureGate(options: StepOptions): boolean {
  return !atLeast(parseKubernetesVersion(options.currentVersion), 1, 22);
}

export function ccmPodOptions(options: StepOptions, phase: 'install' | 'target'): CcmPodOptions {
  return {
    imageTag: phase === 'install' ? options.ccmInstallTag : options.ccmTargetTag,
    leaderMigration: true,
    featureGate: needsFeatureGate(options),
    withNodeIpam: options.decisions.withNodeIpam ?? false,
    ...(options.decisions.ccmArgs ? { ccmArgs: options.decisions.ccmArgs } : {}),
  };
}

export function kubeadmApplyStep(stepId: StepId, current: unknown, options: StepOptions): unknown {
  if (stepId === 'grant-migration-lease')
    return isRecord(current) && current.kind === 'Role' ? grantMigrationLease(current) : current;
  const role = isCcmPod(current) ? 'cloud-controller-manager' : manifestRole(current);
  if (!role || !isRecord(current)) return current;
  const pod = cloneJson(current);
  const container = containers(pod)[0];
  if (!container) return current;
  const hop = hopOf(options, stepId);
  if (hop) {
    upgradeManifest(role, container, hop);
    return pod;
  }
  switch (stepId) {
    case 'enable-leader-migration':
      if (role !== 'kube-controller-manager') return current;
      enableLeaderMigration(pod, container, needsFeatureGate(options));
      return pod;
    case 'install-ccm':
      if (role === 'kube-controller-manager') return renderCcmPod(current, ccmPodOptions(options, 'install'));
      if (role !== 'cloud-controller-manager') return current;
      enableLeaderMigration(pod, container, needsFeatureGate(options));
      container.image = withImageTag(String(container.image ?? ''), options.ccmInstallTag);
      return pod;
    case 'roll-control-plane':
      if (role === 'kube-controller-manager') rollKcm(pod, container, options);
      else if (role === 'cloud-controller-manager')
        container.image = withImageTag(String(container.image ?? ''), options.ccmTargetTag);
      else setFlags(container, setFlag(flagsOf(container), '--cloud-provider=external'));
      return pod;
    case 'disable-leader-migration':
      if (role !== 'cloud-controller-manager') return current;
      setFlags(container, withoutFlags(flagsOf(container), MIGRATION_FLAGS));
      withoutHostPath(pod, LEADER_MIGRATION_VOLUME);
      return pod;
    default:
      return current;
  }
}

/** Seed 003: --enable-leader-migration, --leader-migration-config and the file mounted at the same path. */
function enableLeaderMigration(pod: JsonRecord, container: JsonRecord, featureGate: boolean): void {
  let flags = flagsOf(container);
  flags = setFlag(flags, '--enable-leader-migration');
  flags = setFlag(flags, `--leader-migration-config=${LEADER_MIGRATION_FILE}`);
  if (featureGate)
    flags = setFlag(
      flags,
      `--feature-gates=${addToCommaList(lastFlagValue(flags, 'feature-gates'), 'ControllerManagerLeaderMigration=true')}`,
    );
  setFlags(container, flags);
  withHostPath(pod, container, {
    name: LEADER_MIGRATION_VOLUME,
    path: LEADER_MIGRATION_FILE,
    readOnly: true,
    type: 'File',
  });
}

/** KCM N+1: --cloud-provider=external and no leader migration (seed 003: it must not take part). */
function rollKcm(pod: JsonRecord, container: JsonRecord, options: StepOptions): void {
  let flags = withoutFlags(flagsOf(container), MIGRATION_FLAGS);
  flags = setFlag(flags, '--cloud-provider=external');
  if (options.decisions.withNodeIpam)
    flags = setFlag(
      flags,
      `--controllers=${addToCommaList(lastFlagValue(flags, 'controllers') ?? '*', '-nodeipam')}`,
    );
  setFlags(container, flags);
  withoutHostPath(pod, LEADER_MIGRATION_VOLUME);
  if (options.decisions.upgrade)
    container.image = withImageTag(String(container.image ?? ''), options.targetVersion);
}

/**
 * A hop of the journey on one manifest: kube-controller-manager and kube-apiserver take the release's image,
 * the CCM the release of that minor; from 1.33 kube-apiserver loses --cloud-provider and --cloud-config, which
 * that release removed (kubernetes/kubernetes#130162).
 */
function upgradeManifest(role: string, container: JsonRecord, hop: PlannedUpgrade): void {
  if (role === 'cloud-controller-manager') {
    container.image = withImageTag(String(container.image ?? ''), hop.ccmTag);
    return;
  }
  container.image = withImageTag(String(container.image ?? ''), hop.version);
  if (role === 'kube-apiserver' && apiserverDropsCloudFlags(parseKubernetesVersion(hop.version)))
    setFlags(container, withoutFlags(flagsOf(container), APISERVER_CLOUD_FLAGS));
}
