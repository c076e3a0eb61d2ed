import type { Clock } from '../../../index.js';
import type { InstanceLayout } from '../layout/cluster-layout.js';
import { ComponentError } from '../../component-error.js';

/**
 * What a machine learns about itself from instance metadata (IMDSv2 on the AWS emulator, at the instance's
 * path prefix `/_instance/<id>/`): its id, zone, type, address and the names the DHCP options give it.
 * RKE2's node name from `local-hostname`, RKE's `useInstanceMetadataHostname` and the in-tree kubelet's
 * providerID all come from here.
 */
export interface InstanceMetadata {
  readonly instanceId: string;
  readonly availabilityZone: string;
  readonly instanceType: string;
  readonly privateIp: string;
  readonly hostname: string;
  readonly localHostname: string;
}

export async function readInstanceMetadata(endpoint: string, clock: Clock): Promise<InstanceMetadata> {
  const base = endpoint.endsWith('/') ? endpoint : `${endpoint}/`;
  const tokenResponse = await clock.track(
    fetch(`${base}latest/api/token`, {
      method: 'PUT',
      headers: { 'x-aws-ec2-metadata-token-ttl-seconds': '21600' },
    }),
  );
  if (!tokenResponse.ok) throw new ComponentError(`instance metadata token: HTTP ${tokenResponse.status}`);
  const token = await clock.track(tokenResponse.text());
  const get = async (path: string): Promise<string> => {
    const response = await clock.track(
      fetch(`${base}latest/${path}`, { headers: { 'x-aws-ec2-metadata-token': token } }),
    );
    const text = await clock.track(response.text());
    if (!response.ok) throw new ComponentError(`instance metadata ${path}: HTTP ${response.status}`);
    return text;
  };
  const [identity, hostname, localHostname] = await Promise.all([
    get('dynamic/instance-identity/document'),
    get('meta-data/hostname'),
    get('meta-data/local-hostname'),
  ]);
  const doc = JSON.parse(identity) as {
    instanceId: string;
    availabilityZone: string;
    instanceType: string;
    privateIp: string;
  };
  return {
    instanceId: doc.instanceId,
    availabilityZone: doc.availabilityZone,
    instanceType: doc.instanceType,
    privateIp: doc.privateIp,
    hostname: hostname.trim(),
    localHostname: localHostname.trim(),
  };
}

/** The machine as its metadata describes it (the OS hostname comes from the machine itself, not IMDS). */
export function withMetadata(instance: InstanceLayout, metadata: InstanceMetadata): InstanceLayout {
  return {
    ...instance,
    instanceId: metadata.instanceId,
    availabilityZone: metadata.availabilityZone,
    instanceType: metadata.instanceType,
    privateIp: metadata.privateIp,
    imdsHostname: metadata.hostname,
    imdsLocalHostname: metadata.localHostname,
  };
}
