// The AWS emulator under the loads the CCM and uproot put on it: listing thousands of instances, looking
// nodes up by private DNS name, and many small calls. Figures are wall-clock milliseconds on this machine.
import http from 'node:http';
import { DescribeInstancesCommand, EC2Client, paginateDescribeInstances } from '@aws-sdk/client-ec2';
import { emptyAccountSeed, startAwsEmulator, type AwsEmulator } from '../packages/sandbox/src/aws/index.js';

process.env.AWS_EC2_METADATA_DISABLED = 'true';

const INSTANCES = 5_000;

/** A raw signed-looking POST (the emulator reads the credential scope, not the signature). */
function rawCall(agent: http.Agent, emulator: AwsEmulator, body: string, service = 'ec2'): Promise<string> {
  const auth = `AWS4-HMAC-SHA256 Credential=${emulator.adminCredentials.accessKeyId}/20260101/us-east-1/${service}/aws4_request, SignedHeaders=host, Signature=0`;
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${emulator.url}/`,
      {
        method: 'POST',
        agent,
        headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(Buffer.concat(chunks).toString())
            : reject(new Error(`status ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timed(runs: number, work: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await work();
    times.push(performance.now() - start);
  }
  return Math.round(median(times) * 10) / 10;
}

export async function run(): Promise<Record<string, unknown>> {
  const seed = emptyAccountSeed();
  const emulator = await startAwsEmulator({ seed });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16, noDelay: true });
  let client: EC2Client | undefined;
  try {
    const setupStart = performance.now();
    const subnets = emulator.state.ec2.subnets();
    for (let i = 0; i < INSTANCES; i++) {
      emulator.state.runInstance({
        subnetId: subnets[i % subnets.length]!.id,
        tags: { Name: `node-${i}`, 'kubernetes.io/cluster/bench': 'owned' },
      });
    }
    const setupMs = Math.round(performance.now() - setupStart);
    const all = emulator.state.ec2.listInstances();

    // Small calls, 8 in flight for ~2 s: requests per wall second, and per CPU second of this process (client
    // and emulator share it), which stays meaningful when other work competes for the cores.
    const throughput = async (
      body: string,
      service: string,
    ): Promise<{ wall: number; perCpuSecond: number }> => {
      const deadline = performance.now() + 2_000;
      let done = 0;
      const worker = async (): Promise<void> => {
        while (performance.now() < deadline) {
          await rawCall(agent, emulator, body, service);
          done++;
        }
      };
      const start = performance.now();
      const cpuStart = process.cpuUsage();
      await Promise.all(Array.from({ length: 8 }, worker));
      const used = process.cpuUsage(cpuStart);
      return {
        wall: Math.round(done / ((performance.now() - start) / 1000)),
        perCpuSecond: Math.round(done / ((used.user + used.system) / 1e6)),
      };
    };
    const small = await throughput(
      `Action=DescribeInstances&Version=2016-11-15&InstanceId.1=${all[42]!.id}`,
      'ec2',
    );
    const sts = await throughput('Action=GetCallerIdentity&Version=2011-06-15', 'sts');

    // Every instance, pages of 1000, over raw HTTP (the emulator's cost) and through the SDK's paginator.
    // Rendered instances are cached until EC2 state changes, so a cold pass (after a tag change) is measured too.
    const describeAll = async (): Promise<void> => {
      let token: string | undefined;
      let count = 0;
      do {
        const next = token ? `&NextToken=${token}` : '';
        const xml = await rawCall(
          agent,
          emulator,
          `Action=DescribeInstances&Version=2016-11-15&MaxResults=1000${next}`,
        );
        count += xml.split('<instanceState>').length - 1;
        token = /<nextToken>([^<]+)<\/nextToken>/.exec(xml)?.[1];
      } while (token);
      if (count !== INSTANCES) throw new Error(`expected ${INSTANCES} instances, saw ${count}`);
    };
    const describeAllCold = await timed(3, async () => {
      emulator.state.ec2.createTags([all[0]!.id], { touched: String(performance.now()) });
      await describeAll();
    });
    const cpuBefore = process.cpuUsage();
    const describeAllRaw = await timed(5, describeAll);
    const cpu = process.cpuUsage(cpuBefore);
    const describeAllCpuMs = Math.round((cpu.user + cpu.system) / 1000 / 5);

    // A node-name lookup for 200 nodes at once, as the CCM batches private-dns-name filters.
    const names = all.slice(0, 200).map((i) => i.privateDnsName);
    const values = names.map((n, i) => `Filter.1.Value.${i + 1}=${n}`).join('&');
    const filterBody = `Action=DescribeInstances&Version=2016-11-15&Filter.1.Name=private-dns-name&${values}`;
    const dnsCpuStart = process.cpuUsage();
    const dnsFilterRaw = await timed(20, () => rawCall(agent, emulator, filterBody));
    const dnsCpu = process.cpuUsage(dnsCpuStart);
    const dnsFilterCpuMs = Math.round(((dnsCpu.user + dnsCpu.system) / 1000 / 20) * 10) / 10;

    // The same through the real SDK, whose XML parsing dominates.
    const sdk = new EC2Client({
      region: 'us-east-1',
      endpoint: emulator.url,
      credentials: emulator.adminCredentials,
      maxAttempts: 1,
    });
    client = sdk;
    const describeAllSdk = await timed(3, async () => {
      let count = 0;
      for await (const page of paginateDescribeInstances({ client: sdk, pageSize: 1000 }, {})) {
        for (const r of page.Reservations ?? []) count += r.Instances?.length ?? 0;
      }
      if (count !== INSTANCES) throw new Error(`expected ${INSTANCES} instances, saw ${count}`);
    });
    const dnsFilterSdk = await timed(10, () =>
      sdk.send(new DescribeInstancesCommand({ Filters: [{ Name: 'private-dns-name', Values: names }] })),
    );

    return {
      instances: INSTANCES,
      seedInstancesMs: setupMs,
      describeAllPagesOf1000RawMs: describeAllRaw,
      describeAllPagesOf1000ColdRawMs: describeAllCold,
      describeAllPagesOf1000CpuMs: describeAllCpuMs,
      describeAllPagesOf1000SdkMs: describeAllSdk,
      privateDnsNameFilter200RawMs: dnsFilterRaw,
      privateDnsNameFilter200CpuMs: dnsFilterCpuMs,
      privateDnsNameFilter200SdkMs: dnsFilterSdk,
      describeInstanceByIdPerSecond: small.wall,
      describeInstanceByIdPerCpuSecond: small.perCpuSecond,
      getCallerIdentityPerSecond: sts.wall,
      getCallerIdentityPerCpuSecond: sts.perCpuSecond,
      targets: { describeAllMs: 250, privateDnsNameFilterMs: 20, smallCallsPerSecond: 2000 },
    };
  } finally {
    client?.destroy();
    agent.destroy();
    await emulator.close();
  }
}
