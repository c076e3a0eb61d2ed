import { escapeXml } from '../../protocol/xml.js';
import type { AwsState } from '../../state/aws-state.js';
import type { Ec2Instance } from '../../state/ec2-types.js';
import { stableHex } from '../../state/ids.js';
import type { ActionTable } from '../service-types.js';
import { AwsApiError } from '../../protocol/aws-api-error.js';
import { compileFilters, readFilters } from '../../filters/filter-engine.js';
import { paginate } from '../../paging/page-token.js';
import { invalidFilter, invalidNextToken, maxResults } from './ec2-common.js';

/**
 * DescribeInstanceTopology: the network nodes (three layers) above each instance of a type EC2 knows the
 * topology of; instances of other types are left out of the answer, which is what the CCM reads as
 * "unsupported". The supported types follow the CCM's own default pattern for them
 * (defaultSupportedTopologyInstanceTypePattern in kubernetes/cloud-provider-aws pkg/providers/v1/topology.go,
 * v1.36.1: hpc, trn and p families). IAM is checked before any of this (`ec2:DescribeInstanceTopology`): a
 * role without it gets UnauthorizedOperation, the error the CCM logs as "Not authorized to perform".
 */
const SUPPORTED_TYPE = /^(hpc|trn|p)[0-9]+[a-z]*(-[a-z0-9]+)?(\.[0-9a-z]*)$/;

export function hasInstanceTopology(instanceType: string): boolean {
  return SUPPORTED_TYPE.test(instanceType);
}

/** Three network-node ids per instance, shared by instances of the same zone (the spine above them). */
function networkNodes(instance: Ec2Instance): string[] {
  return [
    `nn-${stableHex(`${instance.availabilityZone}/1`, 17)}`,
    `nn-${stableHex(`${instance.availabilityZone}/2`, 17)}`,
    `nn-${stableHex(`${instance.subnetId}/3`, 17)}`,
  ];
}

function topologyXml(state: AwsState, i: Ec2Instance): string {
  const zoneId = state.ec2.network.subnet(i.subnetId)?.availabilityZoneId ?? '';
  return (
    `<item><instanceId>${i.id}</instanceId><instanceType>${escapeXml(i.instanceType)}</instanceType>` +
    `<networkNodeSet>${networkNodes(i)
      .map((n) => `<item>${n}</item>`)
      .join('')}</networkNodeSet>` +
    `<availabilityZone>${i.availabilityZone}</availabilityZone><zoneId>${zoneId}</zoneId></item>`
  );
}

export const instanceTopologyActions: ActionTable = {
  DescribeInstanceTopology: {
    handle: (ctx) => {
      const { input, state } = ctx;
      const ids = input.list('InstanceId', 'ec2');
      // InstanceIds take at most 100 entries (EC2 API reference); unknown ids fail as in DescribeInstances,
      // known ones of an unsupported type are simply not in the answer.
      if (ids.length > 100) {
        throw new AwsApiError('InvalidParameterValue', 'The maximum number of instance IDs is 100');
      }
      const pool = ids.length > 0 ? state.ec2.instances.requireAll(ids) : state.ec2.instances.all();
      const zoneId = (i: Ec2Instance) => state.ec2.network.subnet(i.subnetId)?.availabilityZoneId ?? '';
      const matches = compileFilters(
        readFilters(input, 'ec2'),
        {
          tags: (i: Ec2Instance) => i.tags,
          fields: {
            'availability-zone': (i: Ec2Instance) => i.availabilityZone,
            'instance-type': (i: Ec2Instance) => i.instanceType,
            'zone-id': zoneId,
          },
        },
        invalidFilter,
      );
      const selected = [...new Set(pool)]
        .filter((i) => i.state === 'running' && hasInstanceTopology(i.instanceType) && matches(i))
        .sort((a, b) => a.seq - b.seq);
      const page = paginate(selected, (i) => i.seq, {
        listing: ctx.action,
        token: input.string('NextToken'),
        limit: maxResults(input, 1, 100),
        invalid: invalidNextToken,
      });
      const body = page.items.map((i) => topologyXml(state, i)).join('');
      return (
        (body === '' ? '<instanceSet/>' : `<instanceSet>${body}</instanceSet>`) +
        (page.next ? `<nextToken>${page.next}</nextToken>` : '')
      );
    },
  },
};
