/**
 * Carrying the in-tree provider's cloud config into the CCM. The in-tree managers read it from
 * `--cloud-config` (RKE renders `cloud_provider.awsCloudProvider` to /etc/kubernetes/cloud-config, RKE2 writes
 * `cloud-provider-config` to a file, kubeadm passes the file); the aws-cloud-controller-manager chart has no
 * value for it (kubernetes/cloud-provider-aws#1085), so without this the CCM starts with none and every
 * setting silently stops applying. The settings every planned CCM release reads are rendered into a
 * ConfigMap the CCM mounts with `--cloud-config`; the others become plan findings that name them.
 */
import type { CcmRelease } from '../ccm/index.js';
import type { PlanFinding } from '../model/plan-types.js';
import {
  CCM_GLOBAL_KEYS,
  SERVICE_OVERRIDE_KEYS,
  canonicalGlobalKey,
  ccmReadsGlobalKey,
  renderAwsCloudConfig,
  type AwsCloudConfig,
} from './aws-cloud-config.js';

export interface CloudConfigCarry {
  /** The INI the CCM mounts (only settings it reads), or undefined when nothing is left to carry. */
  readonly text: string | undefined;
  /** `[Global]` keys carried over. */
  readonly carried: readonly string[];
  readonly findings: readonly PlanFinding[];
}

/**
 * `where` names the source for messages (`cloud_provider.awsCloudProvider`); `releases` are every CCM
 * release the plan runs (install, target, hops).
 */
export function carryCloudConfig(
  config: AwsCloudConfig,
  where: string,
  releases: readonly CcmRelease[],
): CloudConfigCarry {
  const carried: [string, string][] = [];
  const findings: PlanFinding[] = [];
  const dropped: string[] = [];
  for (const [key, value] of config.global) {
    const name = canonicalGlobalKey(key);
    if (name === undefined) {
      dropped.push(key);
      findings.push({
        severity: 'warning',
        code: 'cloud-config-not-read',
        message: `${where}: [Global] ${key} is not a setting any aws-cloud-controller-manager release reads (pkg/providers/v1/config/config.go); gcfg drops it without a word, so it stops applying after the switch`,
        field: `${where}.${key}`,
        hint: 'remove it, or find the setting it was meant to be (a misspelt key never applied in-tree either)',
      });
      continue;
    }
    const notReading = releases.filter((r) => !ccmReadsGlobalKey(r, name));
    if (notReading.length === releases.length) {
      dropped.push(name);
      findings.push({
        severity: 'warning',
        code: 'cloud-config-not-read',
        message: `${where}: [Global] ${name} = ${value} (${CCM_GLOBAL_KEYS[name]!.what}) is no longer read by the aws-cloud-controller-manager ${unique(releases)}: it stops applying after the switch`,
        field: `${where}.${name}`,
        hint: hintFor(name),
      });
      continue;
    }
    carried.push([name, value]);
    if (notReading.length > 0) {
      findings.push({
        severity: 'warning',
        code: 'cloud-config-not-read',
        message: `${where}: [Global] ${name} is carried into the CCM, but the releases ${unique(notReading)} of this plan do not read it: it does not apply while they run`,
        field: `${where}.${name}`,
        hint: hintFor(name),
      });
    }
  }
  const overrides = config.serviceOverrides.map((o) => ({
    name: o.name,
    entries: o.entries.filter(([k]) =>
      SERVICE_OVERRIDE_KEYS.some((s) => s.toLowerCase() === k.toLowerCase()),
    ),
  }));
  for (const section of config.otherSections) {
    findings.push({
      severity: 'warning',
      code: 'cloud-config-not-read',
      message: `${where}: section [${section}] is not read by the aws-cloud-controller-manager (only [Global] and [ServiceOverride "…"]); it is not carried over`,
      field: `${where}.${section}`,
    });
  }
  const out: AwsCloudConfig = { global: carried, serviceOverrides: overrides, otherSections: [] };
  const hasAny = carried.length > 0 || overrides.some((o) => o.entries.length > 0);
  if (hasAny) {
    findings.unshift({
      severity: 'info',
      code: 'cloud-config-carried',
      message: `${where} is carried into the CCM: ${[...carried.map(([k, v]) => `${k} = ${v}`), ...(overrides.length > 0 ? [`${overrides.length} [ServiceOverride] section(s)`] : [])].join(', ')} go into the ConfigMap kube-system/aws-cloud-config, mounted with --cloud-config (the chart has no value for it: kubernetes/cloud-provider-aws#1085)${dropped.length > 0 ? `; not carried: ${dropped.join(', ')}` : ''}`,
      field: where,
    });
  }
  return { text: hasAny ? renderAwsCloudConfig(out) : undefined, carried: carried.map(([k]) => k), findings };
}

function unique(releases: readonly CcmRelease[]): string {
  return [...new Set(releases.map((r) => r.raw))].join(', ');
}

function hintFor(key: string): string {
  if (key === 'DisableStrictZoneCheck')
    return 'nothing to do: from v1.27.1 the CCM no longer validates the region, which is what the setting turned off';
  return 'pin a CCM release that reads it (--ccm-image-tag), or drop the setting and check what changes without it';
}

/**
 * RKE's `cloud_provider.awsCloudProvider` as the cloud config RKE renders from it (rancher/rke
 * cloudprovider/aws/aws.go GenerateCloudConfigFile: ini.ReflectFrom over types.AWSCloudProvider, whose
 * `global` yaml keys map to the INI names below; booleans are written only when true, omitempty).
 */
export function rkeAwsCloudProviderConfig(awsCloudProvider: unknown): AwsCloudConfig {
  const record = (v: unknown): Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  const provider = record(awsCloudProvider);
  const global: [string, string][] = [];
  for (const [key, value] of Object.entries(record(provider.global))) {
    if (value === undefined || value === null || value === '' || value === false) continue;
    global.push([RKE_GLOBAL_KEYS[key] ?? key, String(value)]);
  }
  const overrides = Object.entries(record(provider.service_override ?? provider.serviceOverride)).map(
    ([name, o]) => ({
      name,
      entries: Object.entries(record(o))
        .filter(([, v]) => typeof v === 'string' && v !== '')
        .map(([k, v]) => [RKE_OVERRIDE_KEYS[k] ?? k, String(v)] as [string, string]),
    }),
  );
  return { global, serviceOverrides: overrides, otherSections: [] };
}

/** rancher/rke types/rke_types.go GlobalAwsOpts: yaml key → ini key. */
const RKE_GLOBAL_KEYS: Readonly<Record<string, string>> = {
  zone: 'Zone',
  vpc: 'VPC',
  'subnet-id': 'SubnetID',
  'routetable-id': 'RouteTableID',
  'role-arn': 'RoleARN',
  'kubernetes-cluster-tag': 'KubernetesClusterTag',
  'kubernetes-cluster-id': 'KubernetesClusterID',
  'disable-security-group-ingress': 'DisableSecurityGroupIngress',
  'elb-security-group': 'ElbSecurityGroup',
  'disable-strict-zone-check': 'DisableStrictZoneCheck',
};

/** The other way: `[Global]` settings as RKE's `cloud_provider.awsCloudProvider` (yaml keys). */
export function rkeAwsCloudProviderYaml(global: Readonly<Record<string, string>>): {
  global: Record<string, string | boolean>;
} {
  const yamlKey = (ini: string): string =>
    Object.entries(RKE_GLOBAL_KEYS).find(([, v]) => v.toLowerCase() === ini.toLowerCase())?.[0] ?? ini;
  return {
    global: Object.fromEntries(
      Object.entries(global).map(([k, v]) => [yamlKey(k), v === 'true' ? true : v === 'false' ? false : v]),
    ),
  };
}

/** rancher/rke types/rke_types.go ServiceOverride: yaml key → ini key. */
const RKE_OVERRIDE_KEYS: Readonly<Record<string, string>> = {
  service: 'Service',
  region: 'Region',
  url: 'URL',
  'signing-region': 'SigningRegion',
  'signing-method': 'SigningMethod',
  'signing-name': 'SigningName',
};
