import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { emptyAccountSeed, type AwsEmulator } from '../../../packages/sandbox/src/aws/index.js';
import { emulatorFor } from './helpers.js';

const parser = new XMLParser({ ignoreDeclaration: true });

async function post(
  emulator: AwsEmulator,
  service: string | undefined,
  body: string,
): Promise<{ status: number; doc: Record<string, unknown>; requestId: string | null }> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (service) {
    headers.authorization = `AWS4-HMAC-SHA256 Credential=${emulator.adminCredentials.accessKeyId}/20260101/us-east-1/${service}/aws4_request, SignedHeaders=host, Signature=0`;
  }
  const res = await fetch(`${emulator.url}/`, { method: 'POST', headers, body });
  return {
    status: res.status,
    doc: parser.parse(await res.text()) as Record<string, unknown>,
    requestId: res.headers.get('x-amzn-requestid'),
  };
}

describe('wire-level errors', () => {
  it('answers an unknown EC2 action with InvalidAction in EC2’s error shape', async () => {
    const { emulator } = await emulatorFor({ seed: emptyAccountSeed() });
    const { status, doc, requestId } = await post(
      emulator,
      'ec2',
      'Action=DescribeUnicorns&Version=2016-11-15',
    );
    expect(status).toBe(400);
    expect(doc).toEqual({
      Response: {
        Errors: {
          Error: {
            Code: 'InvalidAction',
            Message: 'The action DescribeUnicorns is not valid for this web service.',
          },
        },
        RequestID: requestId,
      },
    });
  });

  it('answers an unknown query-service action in the ErrorResponse shape', async () => {
    const { emulator } = await emulatorFor();
    const { status, doc } = await post(emulator, 'iam', 'Action=GetUnicorn&Version=2010-05-08');
    expect(status).toBe(400);
    expect(doc).toMatchObject({
      ErrorResponse: {
        Error: {
          Type: 'Sender',
          Code: 'InvalidAction',
          Message: 'Could not find operation GetUnicorn for version 2010-05-08',
        },
      },
    });
  });

  it('tells the two load balancer APIs apart by Version', async () => {
    const { emulator } = await emulatorFor({ seed: emptyAccountSeed() });
    const classic = await post(
      emulator,
      'elasticloadbalancing',
      'Action=DescribeLoadBalancers&Version=2012-06-01',
    );
    expect(classic.doc).toHaveProperty('DescribeLoadBalancersResponse.DescribeLoadBalancersResult');
    expect(JSON.stringify(classic.doc)).not.toContain('LoadBalancerArn');
    const v2 = await post(
      emulator,
      'elasticloadbalancing',
      'Action=DescribeLoadBalancers&Version=2015-12-01',
    );
    expect(v2.status).toBe(200);
    expect(emulator.log.counters()).toMatchObject({
      'elb:DescribeLoadBalancers': 1,
      'elbv2:DescribeLoadBalancers': 1,
    });
  });

  it('rejects unsigned requests with MissingAuthenticationToken', async () => {
    const { emulator } = await emulatorFor();
    const { status, doc } = await post(emulator, undefined, 'Action=GetCallerIdentity&Version=2011-06-15');
    expect(status).toBe(403);
    expect(doc).toMatchObject({ ErrorResponse: { Error: { Code: 'MissingAuthenticationToken' } } });
  });

  it('accepts query parameters in the URL, as the Query protocol allows', async () => {
    const { emulator } = await emulatorFor();
    const res = await fetch(`${emulator.url}/?Action=GetCallerIdentity&Version=2011-06-15`, {
      headers: {
        authorization: `AWS4-HMAC-SHA256 Credential=AKIAX/20260101/us-east-1/sts/aws4_request, SignedHeaders=host, Signature=0`,
      },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<Arn>arn:aws:iam::123456789012:user/sandbox-admin</Arn>');
  });
});
