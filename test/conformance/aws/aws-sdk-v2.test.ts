/**
 * AWS conformance with an independent client: the AWS SDK for JavaScript v2 against the AWS account of every
 * twin kind (RKE2, RKE, kubeadm). See twin-accounts.ts.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { ec2Conformance } from './ec2.js';
import { elbConformance } from './elb.js';
import { iamConformance } from './iam.js';
import { imdsConformance } from './imds.js';
import { startAccount, TWIN_KINDS, type V2Account } from './twin-accounts.js';

describe.each(TWIN_KINDS)('aws-sdk v2 against the %s twin', (kind) => {
  let account: V2Account | undefined;
  beforeAll(async () => {
    account = await startAccount(kind);
  });
  afterAll(async () => {
    await account?.close();
  });
  const current = (): V2Account => {
    if (!account) throw new Error(`the ${kind} twin did not start`);
    return account;
  };
  describe('EC2', () => ec2Conformance(current));
  describe('IAM and STS', () => iamConformance(current));
  describe('ELB and ELBv2', () => elbConformance(current));
  describe('instance metadata', () => imdsConformance(current));
});
