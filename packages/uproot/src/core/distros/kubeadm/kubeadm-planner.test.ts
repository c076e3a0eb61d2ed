import { describe, expect, it } from 'vitest';
import { UprootError } from '../../../errors/index.js';
import { decodeLeaderMigrationConfiguration } from '../../leader-migration/index.js';
import { stepOptionsFromPlan } from '../distro.js';
import { flagsOf } from './static-pod.js';
import { codeOf, example } from '../shared/test-support/examples.js';
import { kubeadmPlanner } from './index.js';
import type { KubeadmDefinition } from './kubeadm-cluster.js';
import type { JsonRecord } from '../../model/json-value.js';

const KCM = example('kube-controller-manager.yaml');

function planOf(files = [KCM], options = {}) {
  const def = kubeadmPlanner.read(files) as KubeadmDefinition;
  return { def, plan: kubeadmPlanner.plan(def, options) };
}

const flags = (pod: unknown): string[] =>
  flagsOf(((pod as JsonRecord).spec as { containers: JsonRecord[] }).containers[0]!);

describe('kubeadm plan (seed 003)', () => {
  const { def, plan } = planOf();
  const options = stepOptionsFromPlan(plan);

  it('has the task\u2019s steps and an explicit configuration', () => {
    expect(plan.steps.map((s) => s.id)).toEqual([
      'grant-migration-lease',
      'enable-leader-migration',
      'install-ccm',
      'roll-control-plane',
      'disable-leader-migration',
      'verify-provider-ids',
    ]);
    expect(plan.ccm.leaderMigrationConfig).toBe('explicit');
  });

  it('patches both leader-locking roles with the full rules list', () => {
    const grant = plan.steps[0]!;
    const [kcmPatch, ccmPatch] = grant.changes;
    expect(kcmPatch).toMatchObject({
      type: 'patch-object',
      patchType: 'merge',
      target: { name: 'system::leader-locking-kube-controller-manager' },
    });
    const rules = (kcmPatch as { patch: { rules: unknown[] } }).patch.rules;
    expect(rules).toHaveLength(3);
    expect(rules[2]).toEqual({
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      resourceNames: ['cloud-provider-extraction-migration'],
      verbs: ['create', 'list', 'get', 'update'],
    });
    expect(ccmPatch).toMatchObject({ target: { name: 'system::leader-locking-cloud-controller-manager' } });
    const live = {
      kind: 'Role',
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['watch'] }, { custom: true }],
    };
    const granted = kubeadmPlanner.applyStep('grant-migration-lease', live, options) as { rules: unknown[] };
    expect(granted.rules).toHaveLength(3);
    expect(kubeadmPlanner.applyStep('grant-migration-lease', granted, options)).toEqual(granted);
  });

  it('enables leader migration on KCM N with the file mounted, and writes a decodable configuration', () => {
    const enabled = kubeadmPlanner.applyStep('enable-leader-migration', def.kcm.pod, options);
    expect(flags(enabled)).toEqual(
      expect.arrayContaining([
        '--enable-leader-migration',
        '--leader-migration-config=/etc/leadermigration.conf',
        '--cloud-provider=aws',
      ]),
    );
    expect(JSON.stringify(enabled)).toContain('"mountPath":"/etc/leadermigration.conf"');
    for (const artifact of plan.artifacts.filter((a) => a.path.startsWith('leader-migration/'))) {
      const decoded = decodeLeaderMigrationConfiguration(artifact.content, { file: artifact.path });
      expect(decoded.issues, artifact.path).toEqual([]);
      expect(decoded.config.leaderName).toBe('cloud-provider-extraction-migration');
    }
  });

  it('derives the CCM static pod from the KCM, and rolls KCM N+1 to external without migration flags', () => {
    const ccm = kubeadmPlanner.applyStep(
      'install-ccm',
      kubeadmPlanner.applyStep('enable-leader-migration', def.kcm.pod, options),
      options,
    );
    expect(flags(ccm)).toEqual(
      expect.arrayContaining([
        '--cloud-provider=aws',
        '--enable-leader-migration',
        '--cloud-config=/etc/kubernetes/cloud.conf',
      ]),
    );
    expect(JSON.stringify(ccm)).toContain('cloud-controller-manager:v1.26.14');
    const rolled = kubeadmPlanner.applyStep(
      'roll-control-plane',
      kubeadmPlanner.applyStep('enable-leader-migration', def.kcm.pod, options),
      options,
    );
    expect(flags(rolled)).toContain('--cloud-provider=external');
    expect(flags(rolled).some((f) => f.includes('leader-migration'))).toBe(false);
    expect(JSON.stringify(rolled)).not.toContain('leadermigration');
    const disabled = kubeadmPlanner.applyStep('disable-leader-migration', ccm, options);
    expect(flags(disabled).some((f) => f.includes('leader-migration'))).toBe(false);
  });

  it('keeps the manifest\u2019s comments and every untouched line', () => {
    const enable = plan.steps.find((s) => s.id === 'enable-leader-migration')!;
    const write = enable.changes.find(
      (c) => c.type === 'write-file' && c.path.endsWith('kube-controller-manager.yaml'),
    );
    const content = write?.type === 'write-file' ? write.content : '';
    expect(content).toContain('# the in-tree provider\u2019s config'.replace('\u2019', "'"));
    const removed = KCM.text.split('\n').filter((line) => !content.split('\n').includes(line));
    expect(removed).toEqual([]);
  });

  it('refuses --with-nodeipam (no aws CCM implements Node IPAM) and upgrades the KCM image with --target-version', () => {
    expect(codeOf(() => planOf([KCM], { withNodeIpam: true, targetVersion: 'v1.27.16' }))).toBe(
      'UP-PLAN-NODEIPAM-CCM',
    );
    const { def: d, plan: p } = planOf([KCM], { targetVersion: 'v1.27.16' });
    const o = stepOptionsFromPlan(p);
    const rolled = kubeadmPlanner.applyStep('roll-control-plane', d.kcm.pod, o);
    expect(flags(rolled)).not.toContain('--controllers=*,bootstrapsigner,tokencleaner,-nodeipam');
    expect(JSON.stringify(rolled)).toContain('kube-controller-manager:v1.27.16');
    // Seed 003's Node IPAM move, kept for a CCM that implements it: KCM N+1 drops nodeipam.
    const moved = { ...o, decisions: { ...o.decisions, withNodeIpam: true } };
    expect(flags(kubeadmPlanner.applyStep('roll-control-plane', d.kcm.pod, moved))).toContain(
      '--controllers=*,bootstrapsigner,tokencleaner,-nodeipam',
    );
  });

  it('says nodeipam stays in the KCM (it allocates CIDRs) and route runs nowhere (--configure-cloud-routes=false)', () => {
    const { plan: p } = planOf([KCM]);
    const byCode = Object.fromEntries(p.findings.map((f) => [f.code, f.message]));
    expect(byCode['nodeipam-controller']).toMatch(/^nodeipam stays in kube-controller-manager/);
    expect(byCode['route-controller']).toMatch(/^route runs in neither manager/);
    expect(byCode['cloud-config-carried']).toMatch(/\/etc\/kubernetes\/cloud\.conf is carried into the CCM/);
  });

  it('moves route to the CCM when the KCM runs it by default (allocate-node-cidrs=true, no configure-cloud-routes)', () => {
    const routed = { ...KCM, text: KCM.text.replace('    - --configure-cloud-routes=false\n', '') };
    const { def: d, plan: p } = planOf([routed]);
    expect(p.findings.find((f) => f.code === 'route-controller')?.message).toMatch(/^route moves/);
    const ccm = kubeadmPlanner.applyStep('install-ccm', d.kcm.pod, stepOptionsFromPlan(p));
    expect(flags(ccm)).toEqual(
      expect.arrayContaining(['--allocate-node-cidrs=true', '--configure-cloud-routes=true']),
    );
    expect(flags(ccm)).not.toContain('--configure-cloud-routes=false');
  });

  it('adds the feature gate on 1.21, and gives nothing to do for an external KCM', () => {
    const v121 = { path: 'kcm.yaml', text: KCM.text.replace('v1.26.15', 'v1.21.14') };
    const { def: d, plan: p } = planOf([v121]);
    expect(
      flags(kubeadmPlanner.applyStep('enable-leader-migration', d.kcm.pod, stepOptionsFromPlan(p))),
    ).toContain('--feature-gates=ControllerManagerLeaderMigration=true');
    const external = {
      path: 'kcm.yaml',
      text: KCM.text.replace('--cloud-provider=aws', '--cloud-provider=external'),
    };
    expect(planOf([external]).plan.outcome.type).toBe('nothing-to-do');
  });

  it('refuses a manifest without a version tag, at the image line', () => {
    const noTag = {
      path: 'kcm.yaml',
      text: KCM.text.replace('kube-controller-manager:v1.26.15', 'kube-controller-manager'),
    };
    try {
      planOf([noTag]);
      expect.unreachable();
    } catch (error) {
      expect(UprootError.is(error) && error.code).toBe('UP-PLAN-KUBEADM-IMAGE');
      expect(UprootError.is(error) && error.location?.line).toBe(
        KCM.text.split('\n').findIndex((l) => l.includes('image:')) + 1,
      );
    }
  });
});
