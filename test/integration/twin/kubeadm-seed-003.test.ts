import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDocument, stringify } from 'yaml';
import { VirtualClock } from '../../../packages/uproot/src/clock/index.js';
import {
  advanceUntil,
  nodes,
  ownerAtEnd,
  podArgs,
  serviceHostnames,
  startHarness,
  type TwinHarness,
} from './support.js';

/**
 * Seed 003 (Kubernetes, "Migrate Replicated Control Plane To Use Cloud Controller Manager") against the
 * kubeadm-intree twin, done as a person would: kubectl for the RBAC, then editing each control-plane node's
 * files under DIR/nodes/<node>/ (the kubelet restarts what changed).
 */

const RBAC_PATCH = JSON.stringify({
  rules: [
    {
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      resourceNames: ['cloud-provider-extraction-migration'],
      verbs: ['create', 'list', 'get', 'update'],
    },
  ],
});

function migrationConfig(component: string): string {
  return stringify({
    kind: 'LeaderMigrationConfiguration',
    apiVersion: 'controllermanager.config.k8s.io/v1',
    leaderName: 'cloud-provider-extraction-migration',
    controllerLeaders: ['route', 'service', 'cloud-node-lifecycle'].map((name) => ({ name, component })),
  });
}

const CCM_MANIFEST = stringify({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'cloud-controller-manager',
    namespace: 'kube-system',
    labels: { component: 'cloud-controller-manager', tier: 'control-plane' },
  },
  spec: {
    hostNetwork: true,
    priorityClassName: 'system-node-critical',
    containers: [
      {
        name: 'cloud-controller-manager',
        image: 'registry.k8s.io/provider-aws/cloud-controller-manager:v1.26.11',
        command: [
          '/bin/aws-cloud-controller-manager',
          '--cloud-provider=aws',
          '--configure-cloud-routes=false',
          '--use-service-account-credentials=true',
          '--enable-leader-migration',
          '--leader-migration-config=/etc/leadermigration.conf',
        ],
        volumeMounts: [{ name: 'leadermigration', mountPath: '/etc/leadermigration.conf', readOnly: true }],
      },
    ],
    volumes: [
      { name: 'leadermigration', hostPath: { path: '/etc/leadermigration.conf', type: 'FileOrCreate' } },
    ],
  },
});

/** Edits the first container's command of a manifest file, and its mounts. */
function editKcm(
  file: string,
  change: { add?: string[]; remove?: RegExp; mount?: boolean; unmount?: boolean; cloudProvider?: string },
): void {
  const doc = parseDocument(readFileSync(file, 'utf8'));
  const pod = doc.toJS() as {
    spec: { containers: { command: string[]; volumeMounts?: unknown[] }[]; volumes?: unknown[] };
  };
  const container = pod.spec.containers[0]!;
  let command = container.command.filter((f) => !(change.remove && change.remove.test(f)));
  if (change.cloudProvider)
    command = command.map((f) =>
      f.startsWith('--cloud-provider=') ? `--cloud-provider=${change.cloudProvider}` : f,
    );
  command.push(...(change.add ?? []));
  container.command = command;
  if (change.mount) {
    container.volumeMounts = [
      ...(container.volumeMounts ?? []),
      { name: 'leadermigration', mountPath: '/etc/leadermigration.conf', readOnly: true },
    ];
    pod.spec.volumes = [
      ...(pod.spec.volumes ?? []),
      { name: 'leadermigration', hostPath: { path: '/etc/leadermigration.conf', type: 'FileOrCreate' } },
    ];
  }
  if (change.unmount) {
    container.volumeMounts = (container.volumeMounts ?? []).filter(
      (m) => (m as { name: string }).name !== 'leadermigration',
    );
    pod.spec.volumes = (pod.spec.volumes ?? []).filter(
      (v) => (v as { name: string }).name !== 'leadermigration',
    );
  }
  writeFileSync(file, stringify(pod));
}

describe('kubeadm-intree following seed 003', () => {
  let harness: TwinHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  function controlPlaneDirs(h: TwinHarness): string[] {
    return h.twin.nodes
      .all()
      .filter((a) => a.instance.role === 'control-plane')
      .map((a) => join(h.dir, 'nodes', a.nodeName!));
  }

  it('migrates by editing the static pod manifests, node by node, with no controller overlap', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('kubeadm-intree', clock);
    const h = harness;
    const { twin, kubectl } = h;
    await clock.advanceBy(30_000);
    const hostnamesBefore = serviceHostnames(twin);
    const dirs = controlPlaneDirs(h);
    expect(dirs).toHaveLength(3);
    for (const d of dirs)
      expect(existsSync(join(d, 'etc/kubernetes/manifests/kube-controller-manager.yaml'))).toBe(true);

    // Grant access to the migration lease, exactly as the seed's commands.
    for (const role of [
      'system::leader-locking-kube-controller-manager',
      'system::leader-locking-cloud-controller-manager',
    ]) {
      const patched = await kubectl([
        'patch',
        '-n',
        'kube-system',
        'role',
        role,
        '-p',
        RBAC_PATCH,
        '--type=merge',
      ]);
      expect(patched.code, patched.stderr).toBe(0);
    }

    // Version N: /etc/leadermigration.conf and the KCM flags on every control-plane node.
    for (const d of dirs) {
      writeFileSync(join(d, 'etc/leadermigration.conf'), migrationConfig('kube-controller-manager'));
      editKcm(join(d, 'etc/kubernetes/manifests/kube-controller-manager.yaml'), {
        add: ['--enable-leader-migration', '--leader-migration-config=/etc/leadermigration.conf'],
        mount: true,
      });
    }
    await advanceUntil(
      clock,
      () => podArgs(twin, 'kube-controller-manager-').every((a) => a.includes('--enable-leader-migration')),
      {
        describe: () => JSON.stringify(podArgs(twin, 'kube-controller-manager-')),
      },
    );
    await advanceUntil(
      clock,
      () => twin.status().leases['cloud-provider-extraction-migration'] !== undefined,
      { maxMs: 120_000 },
    );
    expect(twin.status().leases['cloud-provider-extraction-migration']).toMatch(/^ip-10-0-/);

    // Version N+1, one node at a time: the CCM with the target configuration; the KCM external, no migration.
    for (const d of dirs) {
      writeFileSync(join(d, 'etc/leadermigration.conf'), migrationConfig('cloud-controller-manager'));
      writeFileSync(join(d, 'etc/kubernetes/manifests/cloud-controller-manager.yaml'), CCM_MANIFEST);
      editKcm(join(d, 'etc/kubernetes/manifests/kube-controller-manager.yaml'), {
        remove: /^--(enable-leader-migration|leader-migration-config)/,
        unmount: true,
        cloudProvider: 'external',
      });
      await clock.advanceBy(40_000);
    }
    await advanceUntil(clock, () => podArgs(twin, 'cloud-controller-manager-').length === 3);
    await clock.advanceBy(60_000);

    for (const args of podArgs(twin, 'kube-controller-manager-')) {
      expect(args).toContain('--cloud-provider=external');
      expect(args.some((a) => a.includes('leader-migration'))).toBe(false);
    }
    const status = twin.status();
    expect(status.leases['cloud-provider-extraction-migration']).toBe(
      status.leases['cloud-controller-manager'],
    );
    for (const node of nodes(twin)) {
      expect(node.providerID).toMatch(/^aws:\/\/\/us-east-1[abc]\/i-/);
      expect(node.taints.some((t) => t.key === 'node.cloudprovider.kubernetes.io/uninitialized')).toBe(false);
    }
    expect(serviceHostnames(twin)).toEqual(hostnamesBefore);
    const ledger = twin.ledgerReport();
    expect(ledger.controllers['service']).toBeDefined();
    for (const [name, c] of Object.entries(ledger.controllers)) expect(c.overlapSeconds ?? 0, name).toBe(0);
    expect(ownerAtEnd(twin, 'service')).toBe('cloud-controller-manager');
  });

  it('without the RBAC patch the migration election is Forbidden on the migration lease', async () => {
    const clock = new VirtualClock();
    harness = await startHarness('kubeadm-intree', clock);
    const h = harness;
    await clock.advanceBy(20_000);
    for (const d of controlPlaneDirs(h)) {
      writeFileSync(join(d, 'etc/leadermigration.conf'), migrationConfig('kube-controller-manager'));
      editKcm(join(d, 'etc/kubernetes/manifests/kube-controller-manager.yaml'), {
        add: ['--enable-leader-migration', '--leader-migration-config=/etc/leadermigration.conf'],
        mount: true,
      });
    }
    const forbidden =
      'leases.coordination.k8s.io "cloud-provider-extraction-migration" is forbidden: User "system:kube-controller-manager" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "kube-system"';
    await advanceUntil(clock, () => h.logs.some((l) => l.includes(forbidden)), {
      maxMs: 120_000,
      describe: () =>
        h.logs
          .filter((l) => l.includes('migration'))
          .slice(-5)
          .join('\n'),
    });
    expect(h.twin.status().leases['cloud-provider-extraction-migration']).toBeUndefined();
  });
});
