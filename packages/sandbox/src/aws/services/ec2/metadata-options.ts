import { invalidParameterValue } from '../../protocol/aws-api-error.js';
import type { QueryInput } from '../../protocol/query-input.js';
import type { InstanceMetadataOptions } from '../../state/ec2-types.js';
import type { ActionTable } from '../service-types.js';
import { ec2Arn } from './ec2-common.js';
import { metadataOptionsXml } from './instance-xml.js';

/**
 * Instance metadata options as RunInstances (`MetadataOptions.*`) and ModifyInstanceMetadataOptions take
 * them: HttpTokens optional|required, HttpPutResponseHopLimit 1..64, HttpEndpoint enabled|disabled (EC2 API
 * reference, InstanceMetadataOptionsRequest). Options left out keep their value (or the launch default).
 */
export function readMetadataOptions(
  input: QueryInput,
  prefix = '',
): Partial<InstanceMetadataOptions> | undefined {
  const tokens = input.string(`${prefix}HttpTokens`);
  const hopLimit = input.int(`${prefix}HttpPutResponseHopLimit`);
  const endpoint = input.string(`${prefix}HttpEndpoint`);
  if (tokens === undefined && hopLimit === undefined && endpoint === undefined) return undefined;
  if (tokens !== undefined && tokens !== 'optional' && tokens !== 'required')
    throw invalidParameterValue(`Value (${tokens}) for parameter HttpTokens is invalid.`);
  if (hopLimit !== undefined && (hopLimit < 1 || hopLimit > 64))
    throw invalidParameterValue(
      `Value (${hopLimit}) for parameter HttpPutResponseHopLimit is invalid. Possible values: Integers from 1 to 64.`,
    );
  if (endpoint !== undefined && endpoint !== 'enabled' && endpoint !== 'disabled')
    throw invalidParameterValue(`Value (${endpoint}) for parameter HttpEndpoint is invalid.`);
  return {
    ...(tokens !== undefined ? { httpTokens: tokens } : {}),
    ...(hopLimit !== undefined ? { httpPutResponseHopLimit: hopLimit } : {}),
    ...(endpoint !== undefined ? { httpEndpoint: endpoint } : {}),
  };
}

export const metadataOptionsActions: ActionTable = {
  ModifyInstanceMetadataOptions: {
    resources: ({ state, input }) => [
      ec2Arn(state.region, state.accountId, 'instance', input.requiredString('InstanceId')),
    ],
    handle: ({ state, input }) => {
      const id = input.requiredString('InstanceId');
      const options = state.ec2.instances.setMetadataOptions(id, readMetadataOptions(input) ?? {});
      // A running instance answers `pending`; DescribeInstances shows `applied` once the change is in
      // (AWS CLI reference, modify-instance-metadata-options). The emulator applies it at once.
      return `<instanceId>${id}</instanceId><instanceMetadataOptions>${metadataOptionsXml(options, 'pending')}</instanceMetadataOptions>`;
    },
  },
};
