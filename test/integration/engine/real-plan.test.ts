import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seededRandom } from '../../../packages/uproot/src/clock/index.js';
import { ConfigMapJournalStore } from '../../../packages/uproot/src/adapters/kube/journal-store.js';
import { migrate } from '../../../packages/uproot/src/toolkit/migrate.js';
import { rollback } from '../../../packages/uproot/src/toolkit/rollback.js';
import { planFromSources, plannerTransforms } from '../../../packages/uproot/src/toolkit/migrate-sources.js';
import type { KubeObject } from '../../../packages/sandbox/src/apiserver/index.js';
import { drive, engineSandbox, type EngineSandbox } from './harness.js';

const ROLE = [
  'rbac.authorization.k8s.io/v1/roles',
  'kube-system',
  'system::leader-locking-kube-controller-manager',
] as const;
let sb: EngineSandbox;
beforeEach(async () => {
  sb = await engineSandbox();
  sb.server.store.create('v1/namespaces', { metadata: { name: 'fleet-default' } });
  const cluster = parse(
    readFileSync(join(import.meta.dirname, '../../../packages/uproot/examples/rke2-cluster.yaml'), 'utf8'),
  ) as KubeObject;
  sb.server.store.create('provisioning.cattle.io/v1/clusters', cluster, { namespace: 'fleet-default' });
});
afterEach(async () => {
  await sb.close();
});

describe('migrate with a real planner plan (RKE2 under Rancher)', () => {
  it('plans from the live Cluster, grants the migration lease with the planner’s transformation, keeping a person’s rules, and rolls back', async () => {
    const extra = {
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      resourceNames: ['my-own-lease'],
      verbs: ['get'],
    };
    const role = structuredClone(sb.server.store.get(...ROLE)!);
    sb.server.store.update(
      ROLE[0],
      { ...role, rules: [...(role.rules as unknown[]), extra] },
      { namespace: 'kube-system', name: ROLE[2] },
    );
    const rulesBefore = structuredClone(sb.server.store.get(...ROLE)!.rules);

    const objects = sb.objects();
    const host = { cwd: sb.dir, env: {}, interactive: false };
    const targets = { rancherContext: 'rancher', cluster: 'prod-east' };
    const result = await drive(
      sb.clock,
      migrate(
        {
          ...targets,
          yes: true,
          skipPreflight: true,
          until: 'grant-migration-lease',
          stateDir: join(sb.dir, '.uproot'),
        },
        host,
        {
          clock: sb.clock,
          random: seededRandom(1),
          connect: () => ({ downstream: objects, management: objects }),
          buildPlan: planFromSources(sb.dir),
          transformsFor: plannerTransforms,
          runId: 'real-1',
        },
      ),
    );
    expect(result.outcome).toMatchObject({
      type: 'ran',
      result: { type: 'stopped', after: 'grant-migration-lease' },
    });
    const rules = sb.server.store.get(...ROLE)!.rules as { resourceNames?: string[] }[];
    expect(rules).toContainEqual(extra);
    expect(rules.some((r) => r.resourceNames?.includes('cloud-provider-extraction-migration'))).toBe(true);
    // RKE2 under Rancher: the journal lives beside the Cluster, in fleet-default of the management cluster.
    const journal = await new ConfigMapJournalStore(objects, {
      namespace: 'fleet-default',
      name: 'uproot-migration-prod-east',
    }).load();
    expect(journal?.plan.distro).toBe('rke2');
    expect(journal?.steps[0]).toMatchObject({ id: 'grant-migration-lease', state: 'verified' });

    const undone = await drive(
      sb.clock,
      rollback({ ...targets, yes: true, stateDir: join(sb.dir, '.uproot') }, host, {
        clock: sb.clock,
        connect: () => ({ downstream: objects, management: objects }),
        transformsFor: plannerTransforms,
        runId: 'real-2',
      }),
    );
    expect(undone.exitCode).toBe(0);
    expect(sb.server.store.get(...ROLE)!.rules).toEqual(rulesBefore);
  });
});
