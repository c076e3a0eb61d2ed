import http from 'node:http';
import type { Clock } from 'uproot';
import { sendImdsRequest } from '../../aws/index.js';
import type { InstanceLayout } from '../layout/cluster-layout.js';
import { ComponentError } from '../../component-error.js';

/**
 * What a machine learns about itself from instance metadata (its instance's IMDS, read through the shared
 * port's `/_instance/<id>/` prefix): its id, zone, type, address and the names the DHCP options give it. RKE2's node name from
 * `local-hostname`, RKE's `useInstanceMetadataHostname` and the in-tree kubelet's providerID all come from
 * here. `v1Refused` says whether a token-less (IMDSv1) GET of `local-hostname`, as RKE2 before v1.29.11
 * asks (src/core/distros/rke2/imds-node-name.ts), got 401 (the instance requires tokens).
 */
export interface InstanceMetadata {
  readonly instanceId: string;
  readonly availabilityZone: string;
  readonly instanceType: string;
  readonly privateIp: string;
  readonly hostname: string;
  readonly localHostname: string;
  readonly v1Refused: boolean;
}

/**
 * Reads the machine's metadata over one keep-alive connection, closed afterwards (thousands of machines boot
 * at once). `local-hostname` is asked without a token, as RKE2 before the IMDSv2
 * fix asks: a 401 says the instance requires tokens, and the name is then read with one.
 */
export async function readInstanceMetadata(endpoint: string, clock: Clock): Promise<InstanceMetadata> {
  const url = new URL(endpoint);
  const base = url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const call = (method: string, path: string, headers: Record<string, string> = {}) =>
    clock.track(
      sendImdsRequest({
        host: url.hostname,
        port: url.port,
        method,
        path: `${base}latest/${path}`,
        headers,
        agent,
      }).reply,
    );
  try {
    const tokenReply = await call('PUT', 'api/token', { 'x-aws-ec2-metadata-token-ttl-seconds': '21600' });
    if (tokenReply.status !== 200)
      throw new ComponentError(`instance metadata token: HTTP ${tokenReply.status}`);
    const get = async (path: string): Promise<string> => {
      const reply = await call('GET', path, { 'x-aws-ec2-metadata-token': tokenReply.body });
      if (reply.status !== 200) throw new ComponentError(`instance metadata ${path}: HTTP ${reply.status}`);
      return reply.body;
    };
    const [identity, hostname, v1] = await Promise.all([
      get('dynamic/instance-identity/document'),
      get('meta-data/hostname'),
      call('GET', 'meta-data/local-hostname'),
    ]);
    const localHostname = v1.status === 200 ? v1.body : await get('meta-data/local-hostname');
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
      v1Refused: v1.status === 401,
    };
  } finally {
    agent.destroy();
  }
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
    imdsV1Refused: metadata.v1Refused,
  };
}
