import { parseDocument, stringify } from 'yaml';
import { InputError } from 'uproot';
import type { Scenario } from '../../scenarios/index.js';
import type { ClusterLayout, InstanceLayout } from '../layout/cluster-layout.js';
import type { DistroVersion } from '../layout/versions.js';
import { isRecord } from '../kube/kube-types.js';
import {
  renderAwsCloudConfig,
  rkeAwsCloudProviderConfig,
  rkeAwsCloudProviderYaml,
  extraArgs,
  rkeConfigOf,
  rkeEffectiveSettings,
  type RkeService,
} from 'uproot/core';

/**
 * RKE's `cluster.yml` (or Rancher's `rancher_kubernetes_engine_config` form): the parts the twin acts on —
 * nodes (address, hostname_override, roles), kubernetes_version, cloud_provider and the services'
 * extra_args — read the way `rke up` reads them.
 */

export interface RkeNodeEntry {
  readonly address: string;
  readonly internalAddress: string | undefined;
  readonly hostnameOverride: string | undefined;
  readonly roles: readonly string[];
}

export interface RkeClusterConfig {
  readonly nodes: readonly RkeNodeEntry[];
  readonly kubernetesVersion: string | undefined;
  /** `aws`, `external-aws`, `external` or empty. */
  readonly cloudProviderName: string;
  readonly useInstanceMetadataHostname: boolean;
  /**
   * /etc/kubernetes/cloud-config as RKE renders cloud_provider.awsCloudProvider (rancher/rke
   * cloudprovider/aws/aws.go GenerateCloudConfigFile), when the block is set.
   */
  readonly cloudConfig: string | undefined;
  readonly extraArgs: Readonly<
    Record<'kube-api' | 'kube-controller' | 'kubelet', Readonly<Record<string, string>>>
  >;
}

function fail(file: string, field: string, message: string, value?: unknown): never {
  throw new InputError('UP-RKE-CONFIG', `${file}: ${field}: ${message}`, {
    location: { file, field, ...(value === undefined ? {} : { value }) },
    hint: 'fix cluster.yml as RKE documents it (nodes, services.<name>.extra_args, cloud_provider), then run rke-up again',
  });
}

function stringMap(value: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  return out;
}

export function parseRkeClusterYaml(text: string, file: string): RkeClusterConfig {
  const doc = parseDocument(text);
  const syntax = doc.errors[0];
  if (syntax) {
    throw new InputError('UP-RKE-CONFIG', `${file} is not valid YAML: ${syntax.message.split('\n')[0]}`, {
      location: { file },
      hint: 'fix the YAML syntax, then run rke-up again',
    });
  }
  const raw: unknown = doc.toJS();
  if (!isRecord(raw)) fail(file, '(top level)', 'must be a map');
  const root = rkeConfigOf(raw);
  const nodes = Array.isArray(raw.nodes) ? raw.nodes : Array.isArray(root.nodes) ? root.nodes : [];
  const entries = nodes.map((n, i): RkeNodeEntry => {
    if (!isRecord(n) || typeof n.address !== 'string')
      fail(file, `nodes[${i}].address`, 'every node needs an address', n);
    const roles = Array.isArray(n.role) ? n.role.map(String) : [];
    return {
      address: n.address,
      internalAddress: typeof n.internal_address === 'string' ? n.internal_address : undefined,
      hostnameOverride:
        typeof n.hostname_override === 'string' && n.hostname_override ? n.hostname_override : undefined,
      roles,
    };
  });
  const services = isRecord(root.services) ? root.services : {};
  const extra = (name: RkeService): Record<string, string> => {
    const svc = services[name];
    if (
      svc !== undefined &&
      svc !== null &&
      (!isRecord(svc) ||
        (svc.extra_args !== undefined && svc.extra_args !== null && !isRecord(svc.extra_args)))
    ) {
      fail(file, `services.${name}.extra_args`, 'must be a map of flag names to values', svc);
    }
    return stringMap(extraArgs(raw, name));
  };
  // The cloud provider as uproot's RKE planner evaluates it (src/core/distros/rke/effective-config.ts),
  // including Rancher's default of useInstanceMetadataHostname for external-aws.
  const settings = rkeEffectiveSettings(raw);
  return {
    nodes: entries,
    kubernetesVersion: typeof root.kubernetes_version === 'string' ? root.kubernetes_version : undefined,
    cloudProviderName: settings.cloudProviderName ?? '',
    useInstanceMetadataHostname: settings.useInstanceMetadataHostname,
    cloudConfig: settings.awsCloudConfig ? renderRkeCloudConfig(raw) : undefined,
    extraArgs: {
      'kube-api': extra('kube-api'),
      'kube-controller': extra('kube-controller'),
      kubelet: extra('kubelet'),
    },
  };
}

function renderRkeCloudConfig(raw: unknown): string {
  const provider = rkeConfigOf(raw).cloud_provider;
  return renderAwsCloudConfig(
    rkeAwsCloudProviderConfig(isRecord(provider) ? provider.awsCloudProvider : undefined),
  );
}

/** The cluster.yml the twin starts from (written to DIR/cluster.yml). */
export function initialClusterYaml(
  scenario: Scenario,
  layout: ClusterLayout,
  version: DistroVersion,
): string {
  const header = [
    `# RKE cluster.yml of the sandbox twin "${scenario.name}". Edit it and apply it with`,
    '#   uproot sandbox rke-up --config <this file>',
    '# as you would run `rke up`.',
  ].join('\n');
  const body = {
    cluster_name: scenario.clusterName,
    kubernetes_version: version.configured,
    nodes: layout.instances.map((i) => ({
      address: i.privateIp,
      internal_address: i.privateIp,
      ...(scenario.naming.rkeHostnameOverride ? { hostname_override: i.hostname } : {}),
      user: 'ubuntu',
      role: rkeRoles(i.roles),
    })),
    cloud_provider: {
      name: scenario.cloudProvider === 'in-tree' ? 'aws' : 'external-aws',
      ...(scenario.cloudConfig
        ? { awsCloudProvider: rkeAwsCloudProviderYaml(scenario.cloudConfig.global) }
        : {}),
    },
    services: {
      'kube-api': { extra_args: {} },
      'kube-controller': { extra_args: {} },
      kubelet: { extra_args: {} },
    },
    ...(scenario.upgradeStrategy ? { upgrade_strategy: scenario.upgradeStrategy } : {}),
    network: { plugin: 'canal' },
    ingress: { provider: 'nginx' },
  };
  return `${header}\n${stringify(body)}`;
}

/** cluster.yml's role names (`controlplane`, `etcd`, `worker`) for a machine's roles. */
function rkeRoles(roles: InstanceLayout['roles']): string[] {
  return roles.map((r) => (r === 'control-plane' ? 'controlplane' : r));
}

/** The twin machine a cluster.yml node entry stands for (by address, internal address or hostname). */
export function machineFor(
  entry: RkeNodeEntry,
  instances: readonly InstanceLayout[],
): InstanceLayout | undefined {
  return instances.find(
    (i) =>
      i.privateIp === entry.address ||
      i.privateIp === entry.internalAddress ||
      i.privateDnsName === entry.address ||
      i.hostname === entry.address,
  );
}
