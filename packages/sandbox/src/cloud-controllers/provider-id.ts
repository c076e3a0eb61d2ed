/**
 * AWS provider IDs and node-name → instance-id rules, as cloud-provider-aws has them
 * (pkg/providers/v1/instances.go `KubernetesInstanceID.MapToAWSInstanceID`, aws.go `nodeNameToInstanceID`).
 */

/** `aws:///<az>/<instance-id>`: InstanceID() returns `/<az>/<id>` and getProviderID prepends `aws://`. */
export function formatProviderId(availabilityZone: string, instanceId: string): string {
  return `aws:///${availabilityZone}/${instanceId}`;
}

/** The result of reading a provider ID: the instance id, or upstream's error message. */
export type ParsedProviderId =
  | { readonly ok: true; readonly instanceId: string; readonly zone: string | undefined }
  | { readonly ok: false; readonly error: string };

/**
 * MapToAWSInstanceID: accepts `aws:///<zone>/<id>`, `aws:////<id>` and a bare `i-…`; anything else is
 * "Invalid format for AWS instance". Fargate ids (`fargate-<ip>`) are outside the sandbox.
 */
export function parseProviderId(providerId: string): ParsedProviderId {
  const s = providerId;
  if (s.startsWith('i-') && !s.includes('/')) return { ok: true, instanceId: s, zone: undefined };
  if (!s.startsWith('aws://')) {
    return { ok: false, error: `Invalid format for AWS instance (${providerId})` };
  }
  // aws:///zone/id → ['', 'zone', 'id'] after the scheme's "aws://"; aws:////id → ['', '', 'id']
  const parts = s.slice('aws://'.length).split('/');
  if (parts.length !== 3 || parts[0] !== '') {
    return { ok: false, error: `Invalid format for AWS instance (${providerId})` };
  }
  const id = parts[2] ?? '';
  if (id === '') return { ok: false, error: `Invalid format for AWS instance (${providerId})` };
  return { ok: true, instanceId: id, zone: parts[1] === '' ? undefined : parts[1] };
}

/**
 * Resource-based node names (`i-…` or `i-….<region>.compute.internal`): the instance id is the text before
 * the first `.`. Other names are looked up by private DNS name. Returns undefined for those.
 */
export function instanceIdFromNodeName(nodeName: string): string | undefined {
  if (!nodeName.startsWith('i-')) return undefined;
  const dot = nodeName.indexOf('.');
  return dot === -1 ? nodeName : nodeName.slice(0, dot);
}

/** The region of an availability zone (`us-east-1a` → `us-east-1`), as azToRegion does for standard zones. */
export function regionOfZone(zone: string): string {
  return /[a-z]$/.test(zone) ? zone.slice(0, -1) : zone;
}
