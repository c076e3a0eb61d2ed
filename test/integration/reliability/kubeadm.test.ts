import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StepId } from '../../../packages/uproot/src/core/model/plan-types.js';
import { actAsPerson } from '../../../packages/sandbox/src/demo/twin-person.js';
import type { Twin } from '../../../packages/sandbox/src/twin/index.js';
import type { MigrateResult } from '../../../packages/uproot/src/toolkit/migrate.js';
import { overlapDetail, overlaps, startReliabilityTwin, type ReliabilityTwin } from './harness.js';

/**
 * The kubeadm twin, driven as a person would with `--node-command`: files reach each machine's folder, its
 * kubelet restarts the static pods, and uproot rolls node by node. The person's part (kubelet flags) is done
 * by the demo's hand (twin-person.ts), then uproot resumes with --manual-done.
 */

/** Every file under the machines' folders, by path, to compare before and after. */
function machineFiles(twin: Twin): Record<string, string> {
  const root = twin.files.nodes!;
  const out: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else out[path.slice(root.length + 1)] = readFileSync(path, 'utf8');
    }
  };
  walk(root);
  return out;
}

function rolesRules(twin: Twin): unknown {
  return twin.downstream.store
    .list('rbac.authorization.k8s.io/v1/roles', { namespace: 'kube-system' })
    .items.map((r) => ({ name: r.metadata?.name, rules: (r as { rules?: unknown }).rules }))
    .sort((a, b) => String(a.name).localeCompare(String(b.name)));
}

/** Runs migrate to its end, doing the person's steps as they come up. */
async function migrateWithPerson(sb: ReliabilityTwin, first: MigrateResult): Promise<MigrateResult> {
  let result = first;
  const done: StepId[] = [];
  for (;;) {
    const ran = result.outcome.type === 'ran' ? result.outcome.result : undefined;
    if (ran?.type !== 'waiting-for-person' || done.includes(ran.step)) return result;
    expect(await actAsPerson(sb.twin, sb.clock, ran.journal.plan, ran)).toMatch(/kubeadm-flags.env/);
    done.push(ran.step);
    result = await sb.migrate({ resume: true, manualDone: done });
  }
}

describe('uproot migrate and rollback on the kubeadm-intree twin', () => {
  it('a journey to 1.28 aborted in the hop between the KCM and CCM writes, then resumed: 1.28 everywhere, verify passes', async () => {
    const sb = await startReliabilityTwin('kubeadm-intree');
    try {
      const abort = new AbortController();
      const done: StepId[] = [];
      let result = await sb.migrate({ targetVersion: 'v1.28.15' });
      for (;;) {
        const ran = result.outcome.type === 'ran' ? result.outcome.result : undefined;
        if (ran?.type !== 'waiting-for-person' || done.includes(ran.step)) break;
        expect(await actAsPerson(sb.twin, sb.clock, ran.journal.plan, ran)).toMatch(/package 1\.2[78]\./);
        done.push(ran.step);
        result = await sb.migrate(
          { resume: true, manualDone: done },
          {
            signal: abort.signal,
            onEvent: (e) => {
              // The hop's kube-controller-manager.yaml reached every machine; its CCM manifest has not.
              if (e.type === 'change-done' && e.step === 'upgrade-kubernetes-1.28' && e.index === 1)
                abort.abort(new Error('killed'));
            },
          },
        );
      }
      expect(abort.signal.aborted).toBe(true);
      expect(result.outcome.type === 'ran' && result.outcome.result.type).toBe('interrupted');
      const end = await migrateWithPerson(sb, await sb.migrate({ resume: true, manualDone: done }));
      expect(end.exitCode, JSON.stringify(end.outcome).slice(0, 800)).toBe(0);
      expect(end.outcome.type === 'ran' && end.outcome.result.type).toBe('completed');

      const verified = await sb.settledVerify();
      expect(
        verified.report.checks.filter((c) => c.status === 'fail'),
        sb.explain(),
      ).toEqual([]);
      expect(verified.report.checks.find((c) => c.id === 'kubernetes-version')?.status).toBe('pass');
      expect(overlaps(sb.twin), overlapDetail(sb.twin)).toEqual({});
      const { versions, apiServerVersion } = sb.twin.status();
      expect(apiServerVersion).toBe('v1.28.15');
      expect(new Set(Object.values(versions.kubelets))).toEqual(new Set(['v1.28.15']));
      const images = Object.entries(versions.controlPlanePods);
      expect(images.filter(([p]) => p.startsWith('kube-')).every(([, i]) => i.endsWith(':v1.28.15'))).toBe(
        true,
      );
      expect(
        images
          .filter(([p]) => p.startsWith('cloud-controller-manager-'))
          .every(([, i]) => /:v1\.28\.\d+$/.test(i)),
      ).toBe(true);
    } finally {
      await sb.close();
    }
  }, 180_000);

  it('aborted while rolling the control plane node by node, then resumed: verify passes, no overlap', async () => {
    const sb = await startReliabilityTwin('kubeadm-intree');
    try {
      const abort = new AbortController();
      let rolled = 0;
      const first = await sb.migrate(
        {},
        {
          signal: abort.signal,
          onEvent: (e) => {
            // Lose uproot after the first manifest of the roll reached the machines, mid-step.
            if (e.type === 'change-done' && e.step === 'roll-control-plane' && ++rolled === 2)
              abort.abort(new Error('killed'));
          },
        },
      );
      expect(first.outcome.type === 'ran' && first.outcome.result.type).toBe('interrupted');
      const end = await migrateWithPerson(sb, await sb.migrate({ resume: true }));
      expect(end.exitCode, JSON.stringify(end.outcome).slice(0, 800)).toBe(0);
      expect(end.outcome.type === 'ran' && end.outcome.result.type).toBe('completed');

      const verified = await sb.settledVerify();
      expect(verified.report.checks.filter((c) => c.status === 'fail')).toEqual([]);
      expect(overlaps(sb.twin), overlapDetail(sb.twin)).toEqual({});
      const files = machineFiles(sb.twin);
      const kcm = Object.entries(files).filter(([p]) => p.endsWith('manifests/kube-controller-manager.yaml'));
      expect(kcm).toHaveLength(3);
      for (const [, text] of kcm) {
        expect(text).toContain('--cloud-provider=external');
        expect(text).not.toContain('leader-migration');
      }
      expect(Object.keys(files).filter((p) => p.endsWith('etc/leadermigration.conf'))).toEqual([]);
    } finally {
      await sb.close();
    }
  }, 180_000);

  it('rolled back after the control plane was rolled: every machine file and Role as before, no overlap', async () => {
    const sb = await startReliabilityTwin('kubeadm-intree');
    try {
      const filesBefore = machineFiles(sb.twin);
      const rolesBefore = rolesRules(sb.twin);
      const upTo = await migrateWithPerson(sb, await sb.migrate({ until: 'roll-control-plane' }));
      expect(upTo.exitCode, JSON.stringify(upTo.outcome).slice(0, 800)).toBe(0);
      expect(machineFiles(sb.twin)).not.toEqual(filesBefore);

      let undone = await sb.rollback();
      const did: string[] = [];
      while (undone.outcome.type === 'ran' && undone.outcome.result.type === 'waiting-for-person') {
        const waiting = undone.outcome.result;
        const hand = await actAsPerson(sb.twin, sb.clock, waiting.journal.plan, waiting);
        expect(hand, waiting.instructions).toMatch(/--cloud-provider=aws/);
        did.push(waiting.step);
        undone = await sb.rollback({ manualDone: did as StepId[] });
      }
      expect(undone.exitCode, JSON.stringify(undone.outcome).slice(0, 800)).toBe(0);
      expect(undone.outcome.type === 'ran' && undone.outcome.result.type).toBe('rolled-back');
      expect(did).toEqual(['roll-control-plane']);

      expect(machineFiles(sb.twin)).toEqual(filesBefore);
      expect(rolesRules(sb.twin)).toEqual(rolesBefore);
      for (const node of readdirSync(sb.twin.files.nodes!))
        expect(
          existsSync(
            join(sb.twin.files.nodes!, node, 'etc/kubernetes/manifests/cloud-controller-manager.yaml'),
          ),
        ).toBe(false);
      expect(overlaps(sb.twin), overlapDetail(sb.twin)).toEqual({});
    } finally {
      await sb.close();
    }
  }, 180_000);
});
