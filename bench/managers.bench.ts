// `npx tsx bench/run.ts managers`: the over-HTTP rehearsal's wall time in both modes, and how fast a CCM
// initializes a batch of tainted nodes against the sandbox API server and AWS emulator (virtual time).
import { VirtualClock, seededRandom } from '../packages/uproot/src/clock/index.js';
import { controllerFigures, createLedger } from '../packages/uproot/src/core/ownership/index.js';
import { EMPTY_ACCOUNT_IDS } from '../packages/sandbox/src/aws/index.js';
import { startSimulatedManager } from '../packages/sandbox/src/managers/index.js';
import {
  nodeObject,
  rehearseSandboxMigration,
  startRehearsalCluster,
} from '../packages/sandbox/src/rehearsal/index.js';

async function rehearsal(leaderMigration: boolean): Promise<Record<string, unknown>> {
  const started = performance.now();
  const report = await rehearseSandboxMigration({ leaderMigration, seed: 1 });
  const wallMs = performance.now() - started;
  const virtualSeconds = (report.ledger.window.to - report.steps[0]!.time) / 1000;
  return {
    wallMs: Math.round(wallMs),
    virtualSeconds,
    speedup: Math.round(virtualSeconds / (wallMs / 1000)),
    ledgerEntries: report.entries.length,
    leaseObservations: report.observations.length,
    overlapSeconds: Object.fromEntries(
      report.migrated.map((c) => [c, controllerFigures(report.ledger.controllers[c])?.overlapSeconds]),
    ),
    maxGapSeconds: Object.fromEntries(
      report.migrated.map((c) => [c, controllerFigures(report.ledger.controllers[c])?.maxGapSeconds]),
    ),
  };
}

async function initializeNodes(count: number): Promise<Record<string, unknown>> {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const random = seededRandom(9);
  const cluster = await startRehearsalCluster({ clock, random, loadBalancers: 0, workers: 0 });
  try {
    const names: string[] = [];
    for (let i = 0; i < count; i++) {
      const instance = cluster.aws.state.runInstance({
        subnetId: EMPTY_ACCOUNT_IDS.subnets[i % 3],
        securityGroupIds: [EMPTY_ACCOUNT_IDS.securityGroup],
        tags: { [`kubernetes.io/cluster/${cluster.clusterId}`]: 'owned' },
      });
      names.push(instance.privateDnsName);
      cluster.api.store.create(
        'nodes',
        nodeObject({
          name: instance.privateDnsName,
          instanceId: instance.id,
          zone: instance.availabilityZone,
          privateIp: instance.privateIpAddress,
          instanceType: instance.instanceType,
          controlPlane: false,
          kubeletVersion: 'v1.27.16',
          initialized: false,
        }),
      );
    }
    const node = cluster.nodes[0]!;
    const started = performance.now();
    const t0 = clock.now();
    const manager = startSimulatedManager({
      component: 'cloud-controller-manager',
      nodeName: node.name,
      args: ['--cloud-provider=aws'],
      kubernetesVersion: '1.27',
      kube: cluster.kubeFor('cloud-controller-manager'),
      aws: cluster.awsFor(node),
      clock,
      random,
      ledger: createLedger(),
    });
    const tainted = (): number =>
      names.filter(
        (n) =>
          (
            (cluster.api.store.get('nodes', undefined, n)?.spec as { taints?: unknown[] } | undefined)
              ?.taints ?? []
          ).length > 0,
      ).length;
    while (tainted() > 0) await clock.advanceBy(1_000);
    const wallMs = performance.now() - started;
    await manager.stop();
    return {
      nodes: count,
      wallMs: Math.round(wallMs),
      virtualSeconds: (clock.now() - t0) / 1000,
      nodesPerWallSecond: Math.round(count / (wallMs / 1000)),
    };
  } finally {
    await cluster.close();
  }
}

export async function run(): Promise<Record<string, unknown>> {
  return {
    rehearsalWithLeaderMigration: await rehearsal(true),
    rehearsalWithoutLeaderMigration: await rehearsal(false),
    cloudNodeInitialization: await initializeNodes(200),
  };
}
