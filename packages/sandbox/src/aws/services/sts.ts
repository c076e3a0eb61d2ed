import type { ServiceDefinition } from './service-types.js';
import { result } from './query-common.js';

export const stsService: ServiceDefinition = {
  descriptor: {
    name: 'sts',
    signingName: 'sts',
    version: '2011-06-15',
    namespace: 'https://sts.amazonaws.com/doc/2011-06-15/',
    protocol: 'query',
    iamPrefix: 'sts',
  },
  actions: {
    // AWS never denies GetCallerIdentity, whatever the policies say.
    GetCallerIdentity: {
      iamAction: null,
      handle: ({ state, caller }) =>
        result({ UserId: caller.userId, Account: state.accountId, Arn: caller.arn }),
    },
  },
};
