/**
 * The RKE steps as pure, idempotent transformations of the cluster definition document (cluster.yml, or
 * Rancher's form with rancher_kubernetes_engine_config). Steps that act elsewhere (Helm, cordon, RBAC on
 * the Role the engine reads) return the document unchanged.
 */
import { InputError } from '../../../errors/index.js';
import type { StepId } from '../../model/plan-types.js';
import { hopOf, type StepOptions } from '../distro.js';
import { cloneJson, ensureRecord, isRecord, type JsonRecord } from '../../model/json-value.js';
import { grantMigrationLease } from '../shared/migration-lease-rbac.js';
import { isRkeDocument } from './rke-cluster.js';
import { isManagementRkeCluster, managementView, withManagementView } from './rke-management-form.js';
import type { RkeService } from './effective-config.js';

export const RKE_EXTERNAL_PROVIDER = 'external-aws';
const LEADER_MIGRATION_ARGS = ['enable-leader-migration', 'leader-migration-config'];

export function rkeApplyStep(stepId: StepId, current: unknown, options: StepOptions): unknown {
  if (stepId === 'grant-migration-lease') return grantMigrationLease(current);
  if (isManagementRkeCluster(current)) {
    // Rancher's v3 Cluster: the step edits its yaml view, and the object keeps everything else.
    const cluster = current as JsonRecord;
    const view = managementView(cluster);
    const next = rkeApplyStep(stepId, view, options);
    return next === view ? current : withManagementView(cluster, next);
  }
  if (!isRkeDocument(current)) {
    throw new InputError('UP-PLAN-RKE-OBJECT', 'the object is not an RKE cluster definition', {
      hint: "RKE steps transform cluster.yml (or Rancher's rancher_kubernetes_engine_config form)",
    });
  }
  const document = cloneJson(current as JsonRecord);
  const rke = isRecord(document.rancher_kubernetes_engine_config)
    ? document.rancher_kubernetes_engine_config
    : document;
  const hop = hopOf(options, stepId);
  if (hop) {
    // RKE sets --cloud-provider on kube-apiserver itself from cloud_provider.name (cluster/plan.go), but RKE
    // runs no minor past 1.31, so no hop reaches 1.33, which removed the flag.
    rke.kubernetes_version = hop.version;
    return document;
  }
  switch (stepId) {
    case 'enable-leader-migration':
      extraArgsOf(rke, 'kube-controller')['enable-leader-migration'] = 'true';
      return document;
    case 'switch-to-external': {
      removeLeaderMigration(rke);
      const provider = ensureRecord(rke, ['cloud_provider']);
      provider.name = RKE_EXTERNAL_PROVIDER;
      // RKE would pick the in-tree aws provider again while awsCloudProvider is set (effective-config.ts);
      // its settings went into the CCM's ConfigMap at install-ccm (rke-findings.ts rkeCloudConfig).
      delete provider.awsCloudProvider;
      provider.useInstanceMetadataHostname = options.decisions.useInstanceMetadataHostname ?? true;
      for (const service of ['kubelet', 'kube-api', 'kube-controller'] as const)
        overrideCloudProviderArg(rke, service);
      if (options.decisions.upgrade) rke.kubernetes_version = options.targetVersion;
      return document;
    }
    default:
      return current;
  }
}

function extraArgsOf(rke: JsonRecord, service: RkeService): JsonRecord {
  return ensureRecord(rke, ['services', service, 'extra_args']);
}

/** Removes the leader-migration extra_args, and the maps that held only them. */
function removeLeaderMigration(rke: JsonRecord): void {
  const services = rke.services;
  if (!isRecord(services) || !isRecord(services['kube-controller'])) return;
  const kcm = services['kube-controller'];
  if (!isRecord(kcm.extra_args)) return;
  const args = kcm.extra_args;
  const had = LEADER_MIGRATION_ARGS.some((k) => Object.hasOwn(args, k));
  for (const key of LEADER_MIGRATION_ARGS) delete args[key];
  if (!had) return;
  if (Object.keys(args).length === 0) delete kcm.extra_args;
  if (Object.keys(kcm).length === 0) delete services['kube-controller'];
  if (Object.keys(services).length === 0) delete rke.services;
}

/** An explicit `cloud-provider` extra_arg would override cloud_provider.name: point it at external too. */
function overrideCloudProviderArg(rke: JsonRecord, service: RkeService): void {
  const services = rke.services;
  const svc = isRecord(services) ? services[service] : undefined;
  if (isRecord(svc) && isRecord(svc.extra_args) && Object.hasOwn(svc.extra_args, 'cloud-provider'))
    svc.extra_args['cloud-provider'] = 'external';
}
