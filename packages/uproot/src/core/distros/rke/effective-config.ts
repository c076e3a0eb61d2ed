/**
 * The effective cloud-provider settings of an RKE (RKE1) cluster: `cloud_provider.name` gives every
 * component its provider (`aws` → in-tree, `external-aws`/`external` → `--cloud-provider=external`), and a
 * service's `extra_args` override it. Works on the cluster.yml form and on Rancher's
 * `rancher_kubernetes_engine_config` form.
 *
 * Reused by the sandbox twin to decide how its simulated RKE nodes run their components.
 */
import { isRecord, type JsonRecord } from '../../model/json-value.js';

export type RkeService = 'kube-controller' | 'kube-api' | 'kubelet';

export interface RkeEffectiveSettings {
  readonly cloudProviderName: string | undefined;
  /** `aws`, `external`, `none` (no cloud provider), or another provider name. */
  readonly kubelet: string;
  readonly kubeControllerManager: string;
  readonly kubeApiserver: string;
  readonly kcmLeaderMigration: boolean;
  readonly useInstanceMetadataHostname: boolean;
  /** cloud_provider.awsCloudProvider is set: RKE renders it to /etc/kubernetes/cloud-config (`--cloud-config`). */
  readonly awsCloudConfig: boolean;
}

/** The RKE config inside either form: the document itself, or its `rancher_kubernetes_engine_config`. */
export function rkeConfigOf(document: unknown): JsonRecord {
  if (!isRecord(document)) return {};
  return isRecord(document.rancher_kubernetes_engine_config)
    ? document.rancher_kubernetes_engine_config
    : document;
}

export function extraArgs(document: unknown, service: RkeService): JsonRecord {
  const services = rkeConfigOf(document).services;
  const svc = isRecord(services) ? services[service] : undefined;
  return isRecord(svc) && isRecord(svc.extra_args) ? svc.extra_args : {};
}

function providerFor(name: string | undefined): string {
  if (name === undefined || name === '') return 'none';
  if (name === 'external-aws' || name === 'external') return 'external';
  return name;
}

function truthy(value: unknown): boolean {
  return value === true || (typeof value === 'string' && value.toLowerCase() === 'true');
}

export function rkeEffectiveSettings(document: unknown): RkeEffectiveSettings {
  const provider = rkeConfigOf(document).cloud_provider;
  // RKE picks its aws provider whenever awsCloudProvider is set, whatever the name says, and renames the
  // provider `aws` (rancher/rke cloudprovider/cloudprovider.go InitCloudProvider, then cluster/defaults.go
  // setCloudProvider: c.CloudProvider.Name = p.GetName(); v1.4.15 to v1.8): `external-aws` with an
  // awsCloudProvider block stays in-tree, and from 1.27 RKE refuses it ("Cloud provider aws is invalid").
  const written = isRecord(provider) && typeof provider.name === 'string' ? provider.name : undefined;
  const name = isRecord(provider) && isRecord(provider.awsCloudProvider) ? 'aws' : written;
  const base = providerFor(name);
  const component = (service: RkeService): string => {
    const arg = extraArgs(document, service)['cloud-provider'];
    return typeof arg === 'string' && arg !== '' ? arg : base;
  };
  return {
    cloudProviderName: name,
    kubelet: component('kubelet'),
    kubeControllerManager: component('kube-controller'),
    kubeApiserver: component('kube-api'),
    kcmLeaderMigration: truthy(extraArgs(document, 'kube-controller')['enable-leader-migration']),
    // Rancher defaults it to true for external-aws (and false for aws) when it is not set.
    useInstanceMetadataHostname:
      isRecord(provider) && typeof provider.useInstanceMetadataHostname === 'boolean'
        ? provider.useInstanceMetadataHostname
        : name === 'external-aws',
    awsCloudConfig: isRecord(provider) && isRecord(provider.awsCloudProvider),
  };
}

/** Where the cluster still differs from the external provider; empty when it is fully external. */
export function rkeExternalProblems(document: unknown): string[] {
  const s = rkeEffectiveSettings(document);
  const problems: string[] = [];
  if (s.kubelet !== 'external') problems.push(`kubelet cloud provider is ${s.kubelet}`);
  if (s.kubeControllerManager !== 'external')
    problems.push(`kube-controller-manager cloud provider is ${s.kubeControllerManager}`);
  if (s.kubeApiserver !== 'external') problems.push(`kube-apiserver cloud provider is ${s.kubeApiserver}`);
  if (s.kcmLeaderMigration) problems.push('kube-controller-manager still has enable-leader-migration');
  return problems;
}
