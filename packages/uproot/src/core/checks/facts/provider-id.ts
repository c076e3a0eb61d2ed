/**
 * Node providerIDs as cloud-provider-aws reads them (pkg/providers/v1/instances.go): the canonical form is
 * `aws:///<az>/<instance-id>`; the parser also accepts `aws:////<instance-id>`, a bare `i-…`, and Fargate's
 * `aws:///<zone>/fargate-<ip>`. Anything else (`rke2://…`, `k3s://…`) cannot be mapped to an instance, and
 * a providerID is immutable once set.
 */
export type ParsedProviderId =
  | {
      readonly kind: 'instance';
      readonly instanceId: string;
      readonly zone?: string;
      readonly canonical: boolean;
    }
  | { readonly kind: 'fargate'; readonly zone: string; readonly ip: string }
  | { readonly kind: 'invalid'; readonly reason: string };

const INSTANCE_ID = /^i-[0-9a-f]{8,17}$/;

export function parseProviderId(providerID: string): ParsedProviderId {
  if (INSTANCE_ID.test(providerID)) return { kind: 'instance', instanceId: providerID, canonical: false };
  const scheme = /^([a-z0-9+.-]+):\/\/(.*)$/i.exec(providerID);
  if (!scheme) return { kind: 'invalid', reason: 'not a URL and not an instance id' };
  if (scheme[1] !== 'aws') {
    return { kind: 'invalid', reason: `scheme "${scheme[1]}://" is not "aws://"` };
  }
  // aws:///<zone>/<id>: the URL host is empty, the path is /<zone>/<id>; aws:////<id> has an empty zone.
  const rest = scheme[2]!;
  if (!rest.startsWith('/')) return { kind: 'invalid', reason: 'expected aws:///<zone>/<instance-id>' };
  const parts = rest.slice(1).split('/');
  if (parts.length !== 2) return { kind: 'invalid', reason: 'expected aws:///<zone>/<instance-id>' };
  const [zone, id] = parts as [string, string];
  if (id.startsWith('fargate-')) return { kind: 'fargate', zone, ip: id.slice('fargate-'.length) };
  if (!INSTANCE_ID.test(id)) return { kind: 'invalid', reason: `"${id}" is not an instance id` };
  return zone === ''
    ? { kind: 'instance', instanceId: id, canonical: false }
    : { kind: 'instance', instanceId: id, zone, canonical: true };
}

export function canonicalProviderId(zone: string, instanceId: string): string {
  return `aws:///${zone}/${instanceId}`;
}

/**
 * How the CCM finds a node's instance by name: resource-based names (`i-…`, `i-….<region>.compute.internal`)
 * map to the text before the first `.`; every other name is searched as a PrivateDnsName.
 */
export type NodeNameLookup =
  | { readonly by: 'instance-id'; readonly instanceId: string; readonly customDomain: boolean }
  | {
      readonly by: 'private-dns-name';
      readonly name: string;
      readonly shape: 'aws-dns' | 'short' | 'custom-domain';
    };

export function nodeNameLookup(nodeName: string): NodeNameLookup {
  const first = nodeName.split('.')[0]!;
  if (INSTANCE_ID.test(first)) {
    const domain = nodeName.slice(first.length + 1);
    return {
      by: 'instance-id',
      instanceId: first,
      customDomain: domain !== '' && !/^[a-z0-9-]+\.compute\.internal$/.test(domain),
    };
  }
  const shape = !nodeName.includes('.')
    ? 'short'
    : /\.(ec2\.internal|[a-z0-9-]+\.compute\.internal)$/.test(nodeName)
      ? 'aws-dns'
      : 'custom-domain';
  return { by: 'private-dns-name', name: nodeName, shape };
}

export function isInstanceId(value: string): boolean {
  return INSTANCE_ID.test(value);
}
