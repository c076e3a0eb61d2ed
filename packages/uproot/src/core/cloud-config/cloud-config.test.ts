import { describe, expect, it } from 'vitest';
import { ccmRelease } from '../ccm/index.js';
import {
  carryCloudConfig,
  ccmReadsGlobalKey,
  parseAwsCloudConfig,
  renderAwsCloudConfig,
  rkeAwsCloudProviderConfig,
} from './index.js';

describe('the AWS cloud config per CCM release', () => {
  it('knows which releases read a key (struct at each tag)', () => {
    expect(ccmReadsGlobalKey(ccmRelease(27, 0), 'DisableStrictZoneCheck')).toBe(true);
    expect(ccmReadsGlobalKey(ccmRelease(27, 1), 'DisableStrictZoneCheck')).toBe(false);
    expect(ccmReadsGlobalKey(ccmRelease(26, 6), 'SourceARN')).toBe(false);
    expect(ccmReadsGlobalKey(ccmRelease(26, 7), 'SourceARN')).toBe(true);
    expect(ccmReadsGlobalKey(ccmRelease(34, 0), 'NLBSecurityGroupMode')).toBe(false);
    expect(ccmReadsGlobalKey(ccmRelease(35, 0), 'nlbsecuritygroupmode')).toBe(true);
    expect(ccmReadsGlobalKey(ccmRelease(26, 14), 'KubernetesClusterId')).toBe(true);
    expect(ccmReadsGlobalKey(ccmRelease(26, 14), 'NoSuchKey')).toBe(false);
  });

  it('parses and renders gcfg: sections, comments, quotes, bare booleans', () => {
    const config = parseAwsCloudConfig(
      '; comment\n[Global]\nKubernetesClusterTag = demo\n# c\nDisableSecurityGroupIngress\nZone="us-east-1a"\n\n[ServiceOverride "1"]\nService = ec2\nURL = https://e\n[Other]\nx = 1\n',
    );
    expect(config.global).toEqual([
      ['KubernetesClusterTag', 'demo'],
      ['DisableSecurityGroupIngress', 'true'],
      ['Zone', 'us-east-1a'],
    ]);
    expect(config.serviceOverrides).toEqual([
      {
        name: '1',
        entries: [
          ['Service', 'ec2'],
          ['URL', 'https://e'],
        ],
      },
    ]);
    expect(config.otherSections).toEqual(['Other']);
    expect(parseAwsCloudConfig(renderAwsCloudConfig(config)).global).toEqual(config.global);
  });

  it('carries what every planned release reads, and names what stops applying', () => {
    const config = parseAwsCloudConfig(
      '[Global]\nKubernetesClusterID = legacy\nDisableStrictZoneCheck = true\nElbSecurityGrup = sg-1\n',
    );
    const carry = carryCloudConfig(config, 'cloud-provider-config', [ccmRelease(27, 10), ccmRelease(28, 11)]);
    expect(carry.carried).toEqual(['KubernetesClusterID']);
    expect(carry.text).toBe('[Global]\nKubernetesClusterID = legacy\n');
    expect(carry.findings.map((f) => [f.code, f.field])).toEqual([
      ['cloud-config-carried', 'cloud-provider-config'],
      ['cloud-config-not-read', 'cloud-provider-config.DisableStrictZoneCheck'],
      ['cloud-config-not-read', 'cloud-provider-config.ElbSecurityGrup'],
    ]);
    expect(carryCloudConfig(parseAwsCloudConfig(''), 'x', [ccmRelease(27, 10)]).text).toBeUndefined();
  });

  it("maps RKE's awsCloudProvider (rke types GlobalAwsOpts) to the INI keys RKE renders", () => {
    expect(
      rkeAwsCloudProviderConfig({
        global: {
          'kubernetes-cluster-tag': 'a',
          'routetable-id': 'rtb-1',
          'disable-security-group-ingress': false,
        },
        serviceOverride: { s3: { service: 's3', 'signing-region': 'us-east-1' } },
      }),
    ).toEqual({
      global: [
        ['KubernetesClusterTag', 'a'],
        ['RouteTableID', 'rtb-1'],
      ],
      serviceOverrides: [
        {
          name: 's3',
          entries: [
            ['Service', 's3'],
            ['SigningRegion', 'us-east-1'],
          ],
        },
      ],
      otherSections: [],
    });
  });
});
