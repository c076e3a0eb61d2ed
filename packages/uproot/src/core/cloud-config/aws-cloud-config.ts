/**
 * The AWS cloud config (`--cloud-config`, INI in gcfg syntax) that the in-tree provider and the
 * aws-cloud-controller-manager read: which `[Global]` settings each CCM release still reads, parsing and
 * rendering. The CCM reads it with `gcfg.FatalOnly(gcfg.ReadInto(...))` (pkg/providers/v1/aws.go,
 * readAWSCloudConfig, from v1.22): a key its CloudConfig struct no longer has is dropped without a word, so a
 * setting that silently stops applying is found here, before the switch.
 */
import type { CcmRelease } from '../ccm/index.js';

/** From which release of each minor a key is read, and the last release that reads it. */
interface KeyReleases {
  /** Every release of this minor and later reads it (`0`: every release). */
  readonly fromMinor: number;
  /** Backports: the first patch of an older minor that reads it. */
  readonly backports?: Readonly<Record<number, number>>;
  /** The first release that no longer reads it (the key was removed from the struct). */
  readonly removedIn?: { readonly minor: number; readonly patch: number };
  /** What the setting does, for the plan's statements. */
  readonly what: string;
}

/**
 * `[Global]` keys of the CloudConfig struct per cloud-provider-aws tag (pkg/providers/v1/aws.go up to
 * v1.29, pkg/providers/v1/config/config.go from v1.30; read at every tag with `git show <tag>:<file>`).
 * The in-tree provider of Kubernetes 1.21-1.26 (staging/src/k8s.io/legacy-cloud-providers/aws/aws.go) has
 * Zone, VPC, SubnetID, RouteTableID, RoleARN, SourceARN (1.24+), KubernetesClusterTag, KubernetesClusterID,
 * DisableSecurityGroupIngress, ElbSecurityGroup, DisableStrictZoneCheck and NodeIPFamilies.
 */
export const CCM_GLOBAL_KEYS: Readonly<Record<string, KeyReleases>> = {
  Zone: { fromMinor: 0, what: 'the zone the managers assume when instance metadata is not used' },
  VPC: { fromMinor: 0, what: 'the VPC to manage (with SubnetID, for managers outside AWS)' },
  SubnetID: { fromMinor: 0, what: 'the subnet load balancers are placed in when none is tagged' },
  RouteTableID: { fromMinor: 0, what: 'the route table the route controller writes pod-CIDR routes to' },
  RoleARN: { fromMinor: 0, what: 'an IAM role the manager assumes for every AWS call' },
  // SourceARN: kubernetes/cloud-provider-aws#546 and its cherry-picks: v1.23.18, v1.24.16, v1.25.12, v1.26.7,
  // v1.27.3, v1.28.2, every release from v1.29.0.
  SourceARN: {
    fromMinor: 29,
    backports: { 23: 18, 24: 16, 25: 12, 26: 7, 27: 3, 28: 2 },
    what: 'the aws:SourceArn condition key sent when assuming RoleARN',
  },
  KubernetesClusterTag: {
    fromMinor: 0,
    what: 'the legacy cluster id (KubernetesCluster tag) that scopes instances, subnets, security groups and route tables',
  },
  KubernetesClusterID: {
    fromMinor: 0,
    what: 'the cluster id (kubernetes.io/cluster/<id> tag) that scopes instances, subnets, security groups and route tables',
  },
  DisableSecurityGroupIngress: {
    fromMinor: 0,
    what: 'no ingress rule per load balancer on the node security group',
  },
  ElbSecurityGroup: {
    fromMinor: 0,
    what: 'one security group for every classic ELB instead of one per load balancer',
  },
  // Removed from the struct in v1.27.1 (kubernetes/cloud-provider-aws, pkg/providers/v1/aws.go at v1.27.0
  // vs v1.27.1): the region is validated no longer, so the key is ignored.
  DisableStrictZoneCheck: {
    fromMinor: 0,
    removedIn: { minor: 27, patch: 1 },
    what: 'skip the region validation',
  },
  // NodeIPFamilies: from v1.22.0.
  NodeIPFamilies: { fromMinor: 22, what: 'the IP families of node addresses (ipv4, ipv6)' },
  // Region: from v1.27.1 (pkg/providers/v1/aws.go at v1.27.1).
  Region: { fromMinor: 28, backports: { 27: 1 }, what: 'the region, instead of instance metadata' },
  SupportedTopologyInstanceTypePattern: {
    fromMinor: 33,
    backports: { 30: 8, 31: 6, 32: 2 },
    what: 'instance types the topology labels are requested for',
  },
  ClusterServiceLoadBalancerHealthProbeMode: {
    fromMinor: 33,
    what: 'health-probe mode of cluster load balancers',
  },
  ClusterServiceSharedLoadBalancerHealthProbePort: { fromMinor: 33, what: 'shared health-probe port' },
  ClusterServiceSharedLoadBalancerHealthProbePath: { fromMinor: 33, what: 'shared health-probe path' },
  NLBSecurityGroupMode: { fromMinor: 35, what: 'a managed security group per NLB' },
};

/** `[ServiceOverride "<n>"]` keys: unchanged from v1.21 to v1.36 (endpoint overrides per AWS service). */
export const SERVICE_OVERRIDE_KEYS = [
  'Service',
  'Region',
  'URL',
  'SigningRegion',
  'SigningMethod',
  'SigningName',
];

/** Whether `release` reads `[Global] key` (keys are matched as gcfg does, ignoring case). */
export function ccmReadsGlobalKey(release: CcmRelease, key: string): boolean {
  const name = canonicalGlobalKey(key);
  const spec = name === undefined ? undefined : CCM_GLOBAL_KEYS[name];
  if (!spec || release.major !== 1) return false;
  const { minor, patch } = release;
  if (
    spec.removedIn &&
    (minor > spec.removedIn.minor || (minor === spec.removedIn.minor && patch >= spec.removedIn.patch))
  )
    return false;
  if (minor >= spec.fromMinor) return true;
  const backport = spec.backports?.[minor];
  return backport !== undefined && patch >= backport;
}

/** The struct's spelling of a key (gcfg matches variable names case-insensitively), if it is one. */
export function canonicalGlobalKey(key: string): string | undefined {
  return Object.keys(CCM_GLOBAL_KEYS).find((k) => k.toLowerCase() === key.toLowerCase());
}

/** A cloud config as sections of key → values (gcfg allows a key several times: multi-valued keys). */
export interface AwsCloudConfig {
  readonly global: ReadonlyArray<readonly [key: string, value: string]>;
  readonly serviceOverrides: ReadonlyArray<{
    readonly name: string;
    readonly entries: ReadonlyArray<readonly [key: string, value: string]>;
  }>;
  /** Sections other than Global and ServiceOverride (gcfg fails on them: the managers do not start). */
  readonly otherSections: readonly string[];
}

/**
 * Parses the gcfg INI the managers read: `[Global]`, `[ServiceOverride "1"]`, `key = value` lines,
 * `;`/`#` comments, double-quoted values. Enough of gcfg for what RKE, RKE2 and kubeadm users write.
 */
export function parseAwsCloudConfig(text: string): AwsCloudConfig {
  const global: [string, string][] = [];
  const overrides: { name: string; entries: [string, string][] }[] = [];
  const other: string[] = [];
  let current: [string, string][] | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith(';') || line.startsWith('#')) continue;
    const section = /^\[\s*([A-Za-z][\w-]*)(?:\s+"([^"]*)")?\s*\]$/.exec(line);
    if (section) {
      const name = section[1]!.toLowerCase();
      if (name === 'global') current = global;
      else if (name === 'serviceoverride') {
        const entries: [string, string][] = [];
        overrides.push({ name: section[2] ?? '', entries });
        current = entries;
      } else {
        other.push(section[1]!);
        current = undefined;
      }
      continue;
    }
    const eq = line.indexOf('=');
    const key = (eq < 0 ? line : line.slice(0, eq)).trim();
    // A bare key is a boolean true in gcfg.
    let value = eq < 0 ? 'true' : line.slice(eq + 1).trim();
    if (/^".*"$/.test(value)) value = value.slice(1, -1);
    current?.push([key, value]);
  }
  return { global, serviceOverrides: overrides, otherSections: other };
}

/** Renders a cloud config as gcfg reads it. */
export function renderAwsCloudConfig(config: AwsCloudConfig): string {
  const quote = (v: string): string => (/[\s;#"]/.test(v) ? `"${v.replace(/"/g, '\\"')}"` : v);
  const lines = ['[Global]', ...config.global.map(([k, v]) => `${k} = ${quote(v)}`)];
  for (const o of config.serviceOverrides) {
    lines.push('', `[ServiceOverride "${o.name}"]`, ...o.entries.map(([k, v]) => `${k} = ${quote(v)}`));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The cluster id a cloud config names: `KubernetesClusterTag` (legacy) wins over `KubernetesClusterID`, as
 * awsTagging.init takes it (pkg/providers/v1/tags.go); undefined when it names none (the managers then read
 * it from their instance's tags).
 */
export function configuredClusterId(config: AwsCloudConfig): string | undefined {
  const value = (key: string): string =>
    config.global.filter(([k]) => k.toLowerCase() === key.toLowerCase()).at(-1)?.[1] ?? '';
  const id = value('KubernetesClusterTag') || value('KubernetesClusterID');
  return id === '' ? undefined : id;
}
