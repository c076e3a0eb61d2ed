/**
 * The name a node's kubelet registers under once it runs with `--cloud-provider=external`. Only the in-tree
 * kubelet asked EC2 for its name (the PrivateDnsName); an external one takes what the distribution passes as
 * `--hostname-override`, else the OS hostname (prior-art §3). Where those come from instance metadata or the
 * hostname, the VPC's DHCP options decide the domain: with a custom `domain-name`, IMDS `hostname` /
 * `local-hostname` and the hostname are `ip-10-0-1-23.<domain>` while EC2 keeps `ip-10-0-1-23.ec2.internal`
 * (prior-art §2, pain points 2–3; seed 004). This is a prediction from settings, not an observation.
 */
import type { Ec2InstanceFacts, VpcDhcpFacts } from '../../model/snapshot.js';
import { nodeNameLookup } from './provider-id.js';

/** The domain a VPC's DHCP options give its instances; `none` when the set names no domain (or there is no set). */
export type DhcpDomain = { readonly kind: 'domain'; readonly domain: string } | { readonly kind: 'none' };

export function dhcpDomainOf(facts: VpcDhcpFacts): DhcpDomain {
  // EC2 accepts several space-separated domains; the first is the host's domain, the rest only search.
  const first = facts.domainName?.trim().split(/\s+/)[0]?.toLowerCase();
  return first ? { kind: 'domain', domain: first } : { kind: 'none' };
}

export function describeDomain(domain: DhcpDomain): string {
  return domain.kind === 'domain' ? domain.domain : 'no domain';
}

/** Where a distribution takes an external kubelet's name from. */
export type NamingSource =
  /** A name set explicitly: RKE2 `node-name`, RKE `hostname_override` (or RKE's fallback, the address). */
  | { readonly kind: 'explicit'; readonly name: string; readonly setting: string }
  /** Instance metadata: RKE2 `cloud-provider-name: aws` (`local-hostname`), RKE useInstanceMetadataHostname (`hostname`). */
  | {
      readonly kind: 'instance-metadata';
      readonly path: 'local-hostname' | 'hostname';
      readonly setting: string;
    }
  /** The kubelet's own hostname (kubeadm; RKE2 without aws naming); `observed` when the Node's label shows it. */
  | { readonly kind: 'hostname'; readonly setting: string; readonly observed?: string };

export interface PredictedName {
  readonly name: string;
  /** How the name comes about, for messages: `instance metadata local-hostname with DHCP domain corp.example.com`. */
  readonly how: string;
}

/** The host part EC2 derives names from: `ip-10-0-1-23` (IP names) or `i-0abc…` (resource names). */
export function hostLabelOf(instance: Ec2InstanceFacts): string | undefined {
  const fromDns = instance.privateDnsName.split('.')[0];
  if (fromDns) return fromDns;
  return instance.privateIpAddress ? `ip-${instance.privateIpAddress.replace(/\./g, '-')}` : undefined;
}

export function predictName(
  source: NamingSource,
  instance: Ec2InstanceFacts,
  domain: DhcpDomain,
): PredictedName | undefined {
  const label = hostLabelOf(instance);
  switch (source.kind) {
    case 'explicit':
      return { name: source.name.toLowerCase(), how: source.setting };
    case 'instance-metadata':
      if (domain.kind === 'none') {
        // Without a DHCP domain instance metadata still reports EC2's own name.
        return {
          name: instance.privateDnsName,
          how: `${source.setting}: instance metadata ${source.path}, EC2's name (the DHCP options name no domain)`,
        };
      }
      if (!label) return undefined;
      return {
        name: `${label}.${domain.domain}`,
        how: `${source.setting}: instance metadata ${source.path} carries the VPC's DHCP domain ${domain.domain}`,
      };
    case 'hostname':
      if (source.observed) {
        return {
          name: source.observed.toLowerCase(),
          how: `${source.setting}: the kubelet's hostname (label kubernetes.io/hostname)`,
        };
      }
      if (!label) return undefined;
      return domain.kind === 'none'
        ? {
            name: label,
            how: `${source.setting}: the OS hostname, short because the VPC's DHCP options name no domain`,
          }
        : {
            name: `${label}.${domain.domain}`,
            how: `${source.setting}: the OS hostname, at best ${label}.${domain.domain} with the VPC's DHCP domain`,
          };
  }
}

export type NameVerdict =
  | { readonly resolves: true }
  | { readonly resolves: true; readonly caution: string }
  | { readonly resolves: false };

/**
 * Whether the CCM finds the node's own instance by the predicted name: the PrivateDnsName (EC2 filter
 * `private-dns-name`), or a resource name whose text before the first dot is the instance id.
 */
export function judgeName(name: string, instance: Ec2InstanceFacts): NameVerdict {
  if (name === instance.privateDnsName.toLowerCase()) return { resolves: true };
  const lookup = nodeNameLookup(name);
  if (lookup.by === 'instance-id' && lookup.instanceId === instance.instanceId) {
    return lookup.customDomain
      ? {
          resolves: true,
          caution:
            'a resource name with a custom domain; older CCMs send it whole ("InvalidInstanceID.Malformed", cloud-provider-aws#799)',
        }
      : { resolves: true };
  }
  return { resolves: false };
}
