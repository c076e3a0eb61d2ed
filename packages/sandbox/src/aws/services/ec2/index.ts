import { EC2_NAMESPACE } from '../../protocol/xml.js';
import type { ServiceDefinition } from '../service-types.js';
import { dhcpOptionsActions } from './dhcp-options.js';
import { instanceActions } from './instances.js';
import { instanceTopologyActions } from './instance-topology.js';
import { metadataOptionsActions } from './metadata-options.js';
import { networkActions } from './network.js';
import { routeTableActions } from './route-tables.js';
import { securityGroupActions } from './security-groups.js';
import { tagActions } from './tags.js';

export const ec2Service: ServiceDefinition = {
  descriptor: {
    name: 'ec2',
    signingName: 'ec2',
    version: '2016-11-15',
    namespace: EC2_NAMESPACE,
    protocol: 'ec2',
    iamPrefix: 'ec2',
  },
  actions: {
    ...instanceActions,
    ...instanceTopologyActions,
    ...metadataOptionsActions,
    ...networkActions,
    ...routeTableActions,
    ...dhcpOptionsActions,
    ...securityGroupActions,
    ...tagActions,
  },
};
