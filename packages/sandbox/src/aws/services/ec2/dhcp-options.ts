import { escapeXml } from '../../protocol/xml.js';
import type { AwsState } from '../../state/aws-state.js';
import type { DhcpOptions } from '../../state/ec2-types.js';
import { dhcpOptionsNotFound } from '../../state/network-store.js';
import type { ActionTable } from '../service-types.js';
import { describeCollection } from './describe-collection.js';
import { tagSetXml } from './ec2-common.js';

/**
 * DescribeDhcpOptions, shaped as EC2 answers it: `dhcpOptionsSet` items with a `dhcpConfigurationSet` of
 * `key` and `valueSet`. Preflight reads a VPC's `domain-name` here to predict hostnames.
 */

function dhcpOptionsXml(state: AwsState, d: DhcpOptions): string {
  const configurations = d.configurations
    .map(
      (c) =>
        `<item><key>${escapeXml(c.key)}</key><valueSet>${c.values
          .map((v) => `<item><value>${escapeXml(v)}</value></item>`)
          .join('')}</valueSet></item>`,
    )
    .join('');
  return (
    `<item><dhcpOptionsId>${d.id}</dhcpOptionsId><ownerId>${state.accountId}</ownerId>` +
    `${configurations === '' ? '<dhcpConfigurationSet/>' : `<dhcpConfigurationSet>${configurations}</dhcpConfigurationSet>`}` +
    `${tagSetXml(d.tags)}</item>`
  );
}

export const dhcpOptionsActions: ActionTable = {
  DescribeDhcpOptions: {
    handle: (ctx) =>
      describeCollection(ctx, {
        all: ctx.state.ec2.dhcpOptions(),
        idParam: 'DhcpOptionsId',
        notFound: dhcpOptionsNotFound,
        setName: 'dhcpOptionsSet',
        render: (d) => dhcpOptionsXml(ctx.state, d),
        schema: {
          tags: (d) => d.tags,
          fields: {
            'dhcp-options-id': (d) => d.id,
            key: (d) => d.configurations.map((c) => c.key),
            value: (d) => d.configurations.flatMap((c) => c.values),
            'owner-id': () => ctx.state.accountId,
          },
        },
      }),
  },
};
