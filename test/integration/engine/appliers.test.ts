import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Change } from '../../../packages/uproot/src/core/model/plan-types.js';
import { objectDefinitionApplier } from '../../../packages/uproot/src/engine/appliers/definition-object.js';
import { schedulingApplier } from '../../../packages/uproot/src/engine/appliers/node-scheduling.js';
import { patchObjectApplier } from '../../../packages/uproot/src/engine/appliers/object-changes.js';
import {
  beginApply,
  finishApply,
  recordChange,
} from '../../../packages/uproot/src/engine/journal/journal-transitions.js';
import { journalFor, plan, step } from '../../../packages/uproot/src/engine/testing/plan-fixtures.js';
import type { JsonRecord } from '../../../packages/uproot/src/engine/object-diff/json.js';
import { engineSandbox, type EngineSandbox } from './harness.js';

let sb: EngineSandbox;
beforeEach(async () => {
  sb = await engineSandbox();
});
afterEach(async () => {
  await sb.close();
});

const CLUSTER = 'provisioning.cattle.io/v1/clusters';

function seedRancherCluster(): void {
  sb.server.store.create('v1/namespaces', { metadata: { name: 'fleet-default' } });
  sb.server.store.create(CLUSTER, {
    metadata: { name: 'prod', namespace: 'fleet-default' },
    spec: {
      kubernetesVersion: 'v1.26.15+rke2r1',
      rkeConfig: { machineGlobalConfig: { 'cloud-provider-name': 'aws' }, machineSelectorConfig: [] },
    },
  });
}

const enableMigration: Change = {
  type: 'edit-cluster-definition',
  description: 'enable leader migration on the control plane',
  target: {
    api: 'management',
    apiVersion: 'provisioning.cattle.io/v1',
    kind: 'Cluster',
    namespace: 'fleet-default',
    name: 'prod',
  },
  patch: [
    {
      op: 'add',
      path: '/spec/rkeConfig/machineSelectorConfig/-',
      value: {
        config: { 'kube-controller-manager-arg': ['enable-leader-migration'] },
        machineLabelSelector: {
          matchExpressions: [{ key: 'rke.cattle.io/control-plane-role', operator: 'In', values: ['true'] }],
        },
      },
    },
  ],
  diff: '',
};

describe('RKE2 Cluster edits (optimistic concurrency)', () => {
  it('re-reads and re-applies on 409, so an edit made between GET and PUT survives and the step applies', async () => {
    seedRancherCluster();
    const objects = sb.objects();
    let transforms = 0;
    const applier = objectDefinitionApplier({
      objectsFor: () => objects,
      // The step's pure transformation; the first time it runs, Rancher (here: the store) edits the Cluster
      // between our GET and our PUT.
      transform: (_id, current: JsonRecord) => {
        if (transforms++ === 0) {
          sb.server.store.patch(CLUSTER, 'fleet-default', 'prod', 'merge', {
            metadata: { annotations: { 'rancher.io/touched': 'yes' } },
            spec: { kubernetesVersion: 'v1.26.15+rke2r2' },
          });
        }
        const next = structuredClone(current) as {
          spec: { rkeConfig: { machineSelectorConfig: unknown[] } };
        };
        const already = JSON.stringify(next.spec.rkeConfig.machineSelectorConfig).includes(
          'enable-leader-migration',
        );
        if (!already)
          next.spec.rkeConfig.machineSelectorConfig.push(
            (enableMigration as { patch: { value: unknown }[] }).patch[0]!.value,
          );
        return next as unknown as JsonRecord;
      },
    });
    const s = step('enable-leader-migration', [enableMigration]);
    const ctx = { step: s, index: 0, journal: journalFor(plan([s], 'rke2')) };
    const backup = await applier.capture(enableMigration, ctx);
    const outcome = await applier.apply(enableMigration, backup, ctx);

    // Transform → PUT 409 → read again, transform → PUT; then once more on the backup to record its fields.
    expect(transforms).toBe(3);
    const live = sb.server.store.get(CLUSTER, 'fleet-default', 'prod')!;
    const spec = live.spec as { kubernetesVersion: string; rkeConfig: { machineSelectorConfig: unknown[] } };
    expect(spec.kubernetesVersion).toBe('v1.26.15+rke2r2');
    expect(live.metadata?.annotations).toMatchObject({ 'rancher.io/touched': 'yes' });
    expect(spec.rkeConfig.machineSelectorConfig).toHaveLength(1);
    expect(outcome).toMatchObject({
      type: 'done',
      record: { outcome: 'changed', detail: expect.stringMatching(/after 1 concurrent change/) },
    });

    // Applying again finds the change in place and writes nothing.
    const rv = live.metadata?.resourceVersion;
    expect(await applier.apply(enableMigration, backup, ctx)).toMatchObject({
      record: { outcome: 'unchanged' },
    });
    expect(sb.server.store.get(CLUSTER, 'fleet-default', 'prod')!.metadata?.resourceVersion).toBe(rv);

    // Undo removes only what the step set: the concurrent edit stays.
    const record = outcome.type === 'done' ? { ...outcome.record, change: 0, at: '' } : undefined;
    const undone = await applier.undo(enableMigration, backup, { ...ctx, record, force: false });
    expect(undone.type).toBe('undone');
    const after = sb.server.store.get(CLUSTER, 'fleet-default', 'prod')!.spec as typeof spec;
    expect(after.rkeConfig.machineSelectorConfig).toEqual([]);
    expect(after.kubernetesVersion).toBe('v1.26.15+rke2r2');
  });

  it('falls back to the recorded patch idempotently when no transformation is given', async () => {
    seedRancherCluster();
    const objects = sb.objects();
    const applier = objectDefinitionApplier({ objectsFor: () => objects });
    const s = step('enable-leader-migration', [enableMigration]);
    const ctx = { step: s, index: 0, journal: journalFor(plan([s], 'rke2')) };
    const backup = await applier.capture(enableMigration, ctx);
    await applier.apply(enableMigration, backup, ctx);
    await applier.apply(enableMigration, backup, ctx);
    const spec = sb.server.store.get(CLUSTER, 'fleet-default', 'prod')!.spec as {
      rkeConfig: { machineSelectorConfig: unknown[] };
    };
    expect(spec.rkeConfig.machineSelectorConfig).toHaveLength(1);
  });
});

describe('cluster changes', () => {
  const deps = () => ({ objectsFor: () => sb.objects(), confirm: undefined, manualDone: new Set<never>() });

  it('cordons like kubectl (one SMP per schedulable node) and uncordons only the nodes it cordoned', async () => {
    sb.server.store.patch('v1/nodes', undefined, 'cp-2', 'strategic', { spec: { unschedulable: true } }); // cordoned before
    const change: Change = {
      type: 'cordon-nodes',
      description: 'cordon',
      selector: 'node-role.kubernetes.io/control-plane=true',
    };
    const s = step('cordon-control-plane', [change]);
    const ctx = { step: s, index: 0, journal: journalFor(plan([s])) };
    const applier = schedulingApplier(deps());
    const backup = await applier.capture(change as never, ctx);
    sb.server.resetStats();
    const outcome = await applier.apply(change as never, backup, ctx);
    expect(outcome).toMatchObject({ record: { outcome: 'changed', nodes: ['cp-1', 'cp-3'] } });
    const unschedulable = (n: string) =>
      (sb.server.store.get('v1/nodes', undefined, n)!.spec as { unschedulable?: boolean }).unschedulable ===
      true;
    expect(['cp-1', 'cp-2', 'cp-3', 'worker-1'].map(unschedulable)).toEqual([true, true, true, false]);

    const record = outcome.type === 'done' ? { ...outcome.record, change: 0, at: '' } : undefined;
    await applier.undo(change as never, backup, { ...ctx, record, force: false });
    expect(['cp-1', 'cp-2', 'cp-3'].map(unschedulable)).toEqual([false, true, false]);
  });

  it('lifts only its own cordon: a node cordoned before the migration stays cordoned through the uncordon', async () => {
    // With drain disabled (Rancher's default) Rancher's roll uncordons nothing (rancher/rancher
    // pkg/capr/planner/drain.go), so the plan's own uncordon is what ends the cordon; it must not end anyone
    // else's.
    sb.server.store.patch('v1/nodes', undefined, 'cp-2', 'strategic', { spec: { unschedulable: true } });
    const selector = 'node-role.kubernetes.io/control-plane=true';
    const cordonChange: Change = { type: 'cordon-nodes', description: 'cordon', selector };
    const uncordonChange: Change = { type: 'uncordon-nodes', description: 'uncordon', selector };
    const cordonStep = step('cordon-control-plane', [cordonChange]);
    const switchStep = step('switch-to-external', [uncordonChange]);
    const applier = schedulingApplier(deps());
    let journal = journalFor(plan([cordonStep, switchStep]));
    const cordoned = await applier.apply(cordonChange as never, undefined, {
      step: cordonStep,
      index: 0,
      journal,
    });
    expect(cordoned).toMatchObject({ record: { nodes: ['cp-1', 'cp-3'] } });
    journal = beginApply(journal, 'cordon-control-plane', [], 0);
    if (cordoned.type === 'done')
      journal = recordChange(journal, 'cordon-control-plane', { ...cordoned.record, change: 0, at: '' }, 0);
    journal = finishApply(journal, 'cordon-control-plane', 0);
    const uncordoned = await applier.apply(uncordonChange as never, undefined, {
      step: switchStep,
      index: 0,
      journal,
    });
    expect(uncordoned).toMatchObject({ record: { outcome: 'changed', nodes: ['cp-1', 'cp-3'] } });
    const unschedulable = (n: string) =>
      (sb.server.store.get('v1/nodes', undefined, n)!.spec as { unschedulable?: boolean }).unschedulable ===
      true;
    expect(['cp-1', 'cp-2', 'cp-3'].map(unschedulable)).toEqual([false, true, false]);
  });

  it('guards each cordon with the resourceVersion it read: a node cordoned meanwhile by someone else is not recorded as uproot’s', async () => {
    const selector = 'node-role.kubernetes.io/control-plane=true';
    const change: Change = { type: 'cordon-nodes', description: 'cordon', selector };
    const s = step('cordon-control-plane', [change]);
    const base = sb.objects();
    let raced = false;
    // Between uproot's list and its patch of cp-1, someone else (Rancher's drain) cordons it.
    const racing: typeof base = Object.assign(Object.create(Object.getPrototypeOf(base) as object), base, {
      patch: async (...args: Parameters<typeof base.patch>) => {
        if (!raced && args[0].name === 'cp-1') {
          raced = true;
          sb.server.store.patch('v1/nodes', undefined, 'cp-1', 'strategic', {
            spec: { unschedulable: true },
          });
        }
        return base.patch(...args);
      },
    });
    const applier = schedulingApplier({ ...deps(), objectsFor: () => racing });
    const outcome = await applier.apply(change as never, undefined, {
      step: s,
      index: 0,
      journal: journalFor(plan([s])),
    });
    expect(raced).toBe(true);
    expect(outcome).toMatchObject({ record: { nodes: ['cp-2', 'cp-3'] } });
  });

  it('patches the leader-locking role (JSON patch) idempotently and undoes exactly that', async () => {
    const change: Change = {
      type: 'patch-object',
      description: 'let KCM use the migration lease',
      target: {
        api: 'downstream',
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        namespace: 'kube-system',
        name: 'system::leader-locking-kube-controller-manager',
      },
      patchType: 'json',
      patch: [
        {
          op: 'add',
          path: '/rules/-',
          value: {
            apiGroups: ['coordination.k8s.io'],
            resources: ['leases'],
            resourceNames: ['cloud-provider-extraction-migration'],
            verbs: ['create', 'list', 'get', 'update'],
          },
        },
      ],
      diff: '',
    };
    const s = step('grant-migration-lease', [change]);
    const ctx = { step: s, index: 0, journal: journalFor(plan([s])) };
    const applier = patchObjectApplier(deps());
    const before = structuredClone(
      sb.server.store.get(
        'rbac.authorization.k8s.io/v1/roles',
        'kube-system',
        'system::leader-locking-kube-controller-manager',
      )!.rules,
    );
    const backup = await applier.capture(change as never, ctx);
    const first = await applier.apply(change as never, backup, ctx);
    const second = await applier.apply(change as never, backup, ctx);
    expect([first, second].map((o) => (o.type === 'done' ? o.record.outcome : o.type))).toEqual([
      'changed',
      'unchanged',
    ]);
    const rules = () =>
      sb.server.store.get(
        'rbac.authorization.k8s.io/v1/roles',
        'kube-system',
        'system::leader-locking-kube-controller-manager',
      )!.rules as unknown[];
    expect(rules()).toHaveLength((before as unknown[]).length + 1);
    const record = first.type === 'done' ? { ...first.record, change: 0, at: '' } : undefined;
    await applier.undo(change as never, backup, { ...ctx, record, force: false });
    expect(rules()).toEqual(before);
  });
});
