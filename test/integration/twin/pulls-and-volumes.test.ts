import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import type { Twin } from '../../../packages/sandbox/src/twin/index.js';
import {
  advanceUntil,
  clusterRolledOut,
  patchRancherCluster,
  startHarness,
  type TwinHarness,
} from './support.js';

/**
 * What 1.27 (and CSI migration) take away from workloads: ECR pulls without a credential provider
 * (kubernetes/kubernetes#116329) and in-tree EBS volumes without the EBS CSI driver (CSIMigrationAWS locked on
 * from 1.25), shown on pods as the kubelet and the attach-detach controller report them.
 */

interface PodView {
  phase: string | undefined;
  node: string | undefined;
  waiting: string | undefined;
  ready: boolean;
}

function pods(twin: Twin, prefix: string): PodView[] {
  return twin.downstream.store
    .list('v1/pods', { namespace: 'default' })
    .items.filter((p) => (p.metadata?.name ?? '').startsWith(prefix))
    .map((p) => {
      const status = (p.status ?? {}) as {
        phase?: string;
        conditions?: { type: string; status: string }[];
        containerStatuses?: { state?: { waiting?: { reason?: string } } }[];
      };
      return {
        phase: status.phase,
        node: (p.spec as { nodeName?: string } | undefined)?.nodeName,
        waiting: status.containerStatuses?.[0]?.state?.waiting?.reason,
        ready: (status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
      };
    });
}

function events(twin: Twin, reason: string): { message: string; source: string }[] {
  return twin.downstream.store
    .list('v1/events', { namespace: 'default' })
    .items.filter((e) => e.reason === reason)
    .map((e) => ({
      message: String(e.message),
      source: String((e.source as { component?: string } | undefined)?.component),
    }));
}

describe('workloads on the versions that removed what they used', () => {
  let harness: TwinHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('ECR images pull on 1.26 and fail with 401 on 1.27 kubelets without a credential provider', async () => {
    const clock = new VirtualClock();
    const image = '123456789012.dkr.ecr.us-east-1.amazonaws.com/agent:1.4.2';
    harness = await startHarness(
      {
        name: 'rke2-ecr',
        description: 'RKE2 on the external provider with an ECR DaemonSet',
        distribution: 'rke2',
        kubernetesVersion: 'v1.26.15+rke2r1',
        clusterName: 'demo',
        cloudProvider: 'external',
        nodes: { controlPlane: 1, workers: 1 },
        workloads: { daemonSets: [{ name: 'agent', image }] },
      },
      clock,
    );
    const h = harness;
    const { twin } = h;
    await advanceUntil(clock, () => pods(twin, 'agent-').filter((p) => p.ready).length === 2, {
      stepMs: 2_000,
    });
    const patch = (spec: unknown) => patchRancherCluster(h, spec);
    expect((await patch({ kubernetesVersion: 'v1.27.16+rke2r1' })).code).toBe(0);
    await advanceUntil(clock, () => clusterRolledOut(twin), { stepMs: 2_000 });
    await advanceUntil(clock, () => pods(twin, 'agent-').every((p) => p.waiting === 'ImagePullBackOff'), {
      stepMs: 2_000,
      describe: () => JSON.stringify(pods(twin, 'agent-')),
    });
    expect(pods(twin, 'agent-').map((p) => p.phase)).toEqual(['Pending', 'Pending']);
    // containerd 1.7 (RKE2's runtime) on ECR's 401 with a Basic challenge.
    expect(events(twin, 'Failed').map((e) => e.message)).toContain(
      `Failed to pull image "${image}": rpc error: code = Unknown desc = failed to pull and unpack image "${image}": failed to resolve reference "${image}": pull access denied, repository does not exist or may require authorization: authorization failed: no basic auth credentials`,
    );
    const described = await h.kubectl(['get', 'pods', '-l', 'app=agent', '--no-headers']);
    expect(described.stdout).toContain('ImagePullBackOff');

    // The fix: the ecr-credential-provider plugin for the kubelets.
    const credentialProvider = [
      'image-credential-provider-config=/var/lib/rancher/credentialprovider/config.yaml',
      'image-credential-provider-bin-dir=/var/lib/rancher/credentialprovider/bin',
    ];
    const fixed = await patch({
      rkeConfig: {
        machineGlobalConfig: { 'cloud-provider-name': 'external', 'kubelet-arg': credentialProvider },
      },
    });
    expect(fixed.code, fixed.stderr).toBe(0);
    await advanceUntil(clock, () => clusterRolledOut(twin), { stepMs: 2_000 });
    await advanceUntil(clock, () => pods(twin, 'agent-').every((p) => p.ready && p.phase === 'Running'), {
      stepMs: 2_000,
      describe: () => JSON.stringify(pods(twin, 'agent-')),
    });
  }, 120_000);

  it('missing-ebs-csi: in-tree EBS volumes do not attach without ebs.csi.aws.com; installing the driver fixes it', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('missing-ebs-csi', clock);
    const { twin } = harness;
    await advanceUntil(clock, () => pods(twin, 'db-').filter((p) => p.node).length === 2, { stepMs: 2_000 });
    await clock.advanceBy(10_000);
    expect(pods(twin, 'db-').map((p) => [p.phase, p.waiting])).toEqual([
      ['Pending', 'ContainerCreating'],
      ['Pending', 'ContainerCreating'],
    ]);
    const attach = events(twin, 'FailedAttachVolume');
    expect(attach.map((e) => e.source)).toEqual(['attachdetach-controller', 'attachdetach-controller']);
    expect(attach[0]?.message).toMatch(
      /^AttachVolume\.Attach failed for volume "data-db-[01]" : timed out waiting for external-attacher of ebs\.csi\.aws\.com CSI driver to attach volume vol-[0-9a-f]+$/,
    );
    expect(events(twin, 'FailedMount')[0]?.message).toMatch(
      /^Unable to attach or mount volumes: unmounted volumes=\[data\], unattached volumes=\[data kube-api-access-\w{5}\]: timed out waiting for the condition$/,
    );

    const installed = await harness.kubectl(['apply', '-f', '-'], {
      input: [
        'apiVersion: apps/v1',
        'kind: DaemonSet',
        'metadata: { name: ebs-csi-node, namespace: kube-system }',
        'spec:',
        '  selector: { matchLabels: { app: ebs-csi-node } }',
        '  template:',
        '    metadata: { labels: { app: ebs-csi-node } }',
        '    spec:',
        '      tolerations: [{ operator: Exists }]',
        '      containers: [{ name: ebs-plugin, image: public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver:v1.28.0 }]',
        '',
      ].join('\n'),
    });
    expect(installed.code, installed.stderr).toBe(0);
    await advanceUntil(clock, () => pods(twin, 'db-').every((p) => p.ready && p.phase === 'Running'), {
      stepMs: 2_000,
      describe: () => JSON.stringify(pods(twin, 'db-')),
    });
  }, 120_000);
});
