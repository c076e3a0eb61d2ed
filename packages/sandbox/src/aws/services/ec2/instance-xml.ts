import { escapeXml } from '../../protocol/xml.js';
import type { AwsState } from '../../state/aws-state.js';
import { instanceStateCodes, type Ec2Instance, type InstanceMetadataOptions } from '../../state/ec2-types.js';
import { publicDnsNameFor } from '../../state/ipv4.js';
import type { InstanceStateName } from '../../seed/seed-schema.js';
import { tagSetXml } from './ec2-common.js';

interface CachedXml {
  readonly revision: number;
  readonly shownState: InstanceStateName;
  readonly xml: string;
}

/** Rendered instances, valid while EC2's revision is unchanged (any EC2 change invalidates them all). */
const rendered = new WeakMap<Ec2Instance, CachedXml>();

/**
 * One instance as DescribeInstances/RunInstances return it. This is the hot path when the CCM lists thousands of
 * nodes, so the XML is written by hand and cached until EC2 state changes.
 */
export function instanceXml(
  state: AwsState,
  i: Ec2Instance,
  shownState: InstanceStateName = i.state,
): string {
  const revision = state.ec2.revision;
  const cached = rendered.get(i);
  if (cached && cached.revision === revision && cached.shownState === shownState) return cached.xml;
  const xml = renderInstance(state, i, shownState);
  rendered.set(i, { revision, shownState, xml });
  return xml;
}

/** Element names follow the SDK's EC2 schema (`instanceState`, `tagSet`, `groupSet`), in AWS's order. */
function renderInstance(state: AwsState, i: Ec2Instance, shownState: InstanceStateName): string {
  const account = state.accountId;
  let groups = '';
  for (const id of i.securityGroupIds) {
    const name = state.ec2.securityGroups.get(id)?.name ?? '';
    groups += `<item><groupId>${id}</groupId><groupName>${escapeXml(name)}</groupName></item>`;
  }
  const groupSet = groups === '' ? '<groupSet/>' : `<groupSet>${groups}</groupSet>`;
  const launch = new Date(i.launchTime).toISOString();
  const publicDns = i.publicIpAddress ? publicDnsNameFor(i.publicIpAddress, state.region) : '';
  const privateDns = escapeXml(i.privateDnsName);
  const stopped = shownState !== 'running' && shownState !== 'pending';
  const stateReason = stopped
    ? '<stateReason><code>Client.UserInitiatedShutdown</code><message>Client.UserInitiatedShutdown: User initiated shutdown</message></stateReason>'
    : '';
  const profile = i.iamInstanceProfile
    ? `<iamInstanceProfile><arn>${escapeXml(i.iamInstanceProfile.arn)}</arn><id>${i.iamInstanceProfile.id}</id></iamInstanceProfile>`
    : '';
  const eni =
    shownState === 'terminated'
      ? '<networkInterfaceSet/>'
      : `<networkInterfaceSet><item><networkInterfaceId>${i.networkInterfaceId}</networkInterfaceId><subnetId>${i.subnetId}</subnetId><vpcId>${i.vpcId}</vpcId><description/><ownerId>${account}</ownerId><status>in-use</status><macAddress>${i.macAddress}</macAddress><privateIpAddress>${i.privateIpAddress}</privateIpAddress><privateDnsName>${privateDns}</privateDnsName><sourceDestCheck>true</sourceDestCheck>${groupSet}<attachment><attachmentId>${i.networkAttachmentId}</attachmentId><deviceIndex>0</deviceIndex><status>attached</status><attachTime>${launch}</attachTime><deleteOnTermination>true</deleteOnTermination><networkCardIndex>0</networkCardIndex></attachment>${i.publicIpAddress ? `<association><publicIp>${i.publicIpAddress}</publicIp><publicDnsName>${publicDns}</publicDnsName><ipOwnerId>amazon</ipOwnerId></association>` : ''}<privateIpAddressesSet><item><privateIpAddress>${i.privateIpAddress}</privateIpAddress><privateDnsName>${privateDns}</privateDnsName><primary>true</primary></item></privateIpAddressesSet><ipv6AddressesSet/><interfaceType>interface</interfaceType></item></networkInterfaceSet>`;
  const hostnameType = i.privateDnsName.startsWith('i-') ? 'resource-name' : 'ip-name';
  return (
    `<item><instanceId>${i.id}</instanceId><imageId>${escapeXml(i.imageId)}</imageId>` +
    `<instanceState><code>${instanceStateCodes[shownState]}</code><name>${shownState}</name></instanceState>` +
    `<privateDnsName>${shownState === 'terminated' ? '' : privateDns}</privateDnsName><dnsName>${publicDns}</dnsName>` +
    `<reason>${escapeXml(i.stateTransitionReason)}</reason>` +
    (i.keyName ? `<keyName>${escapeXml(i.keyName)}</keyName>` : '') +
    `<amiLaunchIndex>${i.amiLaunchIndex}</amiLaunchIndex><productCodes/>` +
    `<instanceType>${escapeXml(i.instanceType)}</instanceType><launchTime>${launch}</launchTime>` +
    `<placement><availabilityZone>${i.availabilityZone}</availabilityZone><groupName/><tenancy>default</tenancy></placement>` +
    `<monitoring><state>disabled</state></monitoring>` +
    (shownState === 'terminated'
      ? ''
      : `<subnetId>${i.subnetId}</subnetId><vpcId>${i.vpcId}</vpcId><privateIpAddress>${i.privateIpAddress}</privateIpAddress>`) +
    (i.publicIpAddress && !stopped ? `<ipAddress>${i.publicIpAddress}</ipAddress>` : '') +
    `<sourceDestCheck>true</sourceDestCheck>${groupSet}${stateReason}` +
    `<architecture>x86_64</architecture><rootDeviceType>ebs</rootDeviceType><rootDeviceName>/dev/xvda</rootDeviceName>` +
    `<blockDeviceMapping/><virtualizationType>hvm</virtualizationType>${tagSetXml(i.tags)}` +
    `<hypervisor>xen</hypervisor>${eni}${profile}<ebsOptimized>false</ebsOptimized><enaSupport>true</enaSupport>` +
    `<metadataOptions>${metadataOptionsXml(i.metadataOptions, 'applied')}</metadataOptions>` +
    `<privateDnsNameOptions><hostnameType>${hostnameType}</hostnameType><enableResourceNameDnsARecord>false</enableResourceNameDnsARecord><enableResourceNameDnsAAAARecord>false</enableResourceNameDnsAAAARecord></privateDnsNameOptions>` +
    `<platformDetails>Linux/UNIX</platformDetails><usageOperation>RunInstances</usageOperation>` +
    `<bootMode>uefi-preferred</bootMode><currentInstanceBootMode>legacy-bios</currentInstanceBootMode></item>`
  );
}

/**
 * The fields of an InstanceMetadataOptionsResponse (`metadataOptions` in DescribeInstances,
 * `instanceMetadataOptions` in ModifyInstanceMetadataOptions), in the SDK schema's order.
 */
export function metadataOptionsXml(options: InstanceMetadataOptions, state: 'pending' | 'applied'): string {
  return (
    `<state>${state}</state><httpTokens>${options.httpTokens}</httpTokens>` +
    `<httpPutResponseHopLimit>${options.httpPutResponseHopLimit}</httpPutResponseHopLimit>` +
    `<httpEndpoint>${options.httpEndpoint}</httpEndpoint><httpProtocolIpv6>disabled</httpProtocolIpv6>` +
    '<instanceMetadataTags>disabled</instanceMetadataTags>'
  );
}

/** Reservations in order of first appearance, each with its instances (a page may split one). */
export function reservationSetXml(
  state: AwsState,
  instances: readonly Ec2Instance[],
  shownState?: (i: Ec2Instance) => InstanceStateName,
): string {
  if (instances.length === 0) return '<reservationSet/>';
  const byReservation = new Map<string, Ec2Instance[]>();
  for (const i of instances) {
    const list = byReservation.get(i.reservationId);
    if (list) list.push(i);
    else byReservation.set(i.reservationId, [i]);
  }
  let out = '<reservationSet>';
  for (const [reservationId, members] of byReservation) {
    out += `<item><reservationId>${reservationId}</reservationId><ownerId>${state.accountId}</ownerId><groupSet/><instancesSet>`;
    for (const i of members) out += instanceXml(state, i, shownState?.(i));
    out += '</instancesSet></item>';
  }
  return out + '</reservationSet>';
}
