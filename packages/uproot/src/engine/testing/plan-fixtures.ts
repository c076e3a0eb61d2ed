/**
 * Small plans and journals for engine tests: plain data, no I/O. (Used by *.test.ts and the integration
 * tests; not part of the public API.)
 */
import type { Change, Gate, MigrationPlan, PlanStep, StepId } from '../../core/model/plan-types.js';
import type { Journal } from '../journal/journal-schema.js';
import { createJournal } from '../journal/journal-transitions.js';

export function step(id: StepId, changes: Change[], gates: Gate[] = [], undo: Change[] = []): PlanStep {
  return {
    id,
    title: `Step ${id}`,
    description: `does ${id}`,
    source: 'test',
    changes,
    gates,
    undo: { description: `undo ${id}`, changes: undo },
    optional: false,
  };
}

export function plan(steps: PlanStep[], distro: MigrationPlan['distro'] = 'kubeadm'): MigrationPlan {
  return {
    schemaVersion: 'uproot.dev/plan/v1',
    distro,
    cluster: { name: 'test', source: 'test' },
    kubernetes: { current: '1.26.15', target: '1.27.16' },
    ccm: {
      image: 'registry.k8s.io/provider-aws/cloud-controller-manager',
      installTag: 'v1.26.12',
      targetTag: 'v1.27.9',
      leaderMigrationConfig: 'default',
    },
    outcome: { type: 'migrate' },
    steps,
    findings: [],
    artifacts: [],
  };
}

export function journalFor(p: MigrationPlan, now = Date.UTC(2026, 0, 1)): Journal {
  return createJournal({
    plan: p,
    location: { api: 'downstream', namespace: 'kube-system', name: 'uproot-migration' },
    run: { runId: 'run-1', command: 'migrate', startedAt: new Date(now).toISOString(), resumed: false },
    loadBalancers: [],
    now,
  });
}

export const configMapPatch = (name: string, key: string, value: string): Change => ({
  type: 'patch-object',
  description: `set ${key} on ${name}`,
  target: { api: 'downstream', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name },
  patchType: 'merge',
  patch: { data: { [key]: value } },
  diff: '',
});

export const cordon = (selector = 'node-role.kubernetes.io/control-plane'): Change => ({
  type: 'cordon-nodes',
  description: `cordon ${selector}`,
  selector,
});

export const uncordon = (selector = 'node-role.kubernetes.io/control-plane'): Change => ({
  type: 'uncordon-nodes',
  description: `uncordon ${selector}`,
  selector,
});

export const manual = (instructions: string): Change => ({
  type: 'manual',
  description: 'a manual step',
  instructions,
});

export const flagsGate = (cloudProvider: 'aws' | 'external', kcmLeaderMigration: boolean): Gate => ({
  type: 'control-plane-flags',
  expect: { cloudProvider, kcmLeaderMigration },
  timeoutSeconds: 60,
});
