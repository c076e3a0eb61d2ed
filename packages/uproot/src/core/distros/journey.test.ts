/**
 * The upgrade journey past the migration, on the three distributions: the migration folds in the next
 * minor (seed 002), then one hop per minor, each re-pinning the CCM, dropping what its release removed, and
 * gated on the whole cluster running it.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseKubernetesVersion } from '../model/kubernetes-version.js';
import { isUpgradeStepId, type MigrationPlan } from '../model/plan-types.js';
import type { DistroPlanner, PlanOptions, SourceFile } from './distro.js';
import { stepOptionsFromPlan } from './distro.js';
import { kubeadmPlanner } from './kubeadm/index.js';
import { rkePlanner } from './rke/index.js';
import { rke2EffectiveConfig, roleLabels, rke2Planner } from './rke2/index.js';
import { argList } from './rke2/effective-config.js';
import { isRecord, type JsonRecord } from '../model/json-value.js';
import { codeOf, errorOf, example, replayObject } from './shared/test-support/examples.js';
import { resolveTarget } from './shared/version-policy.js';

function planOf(planner: DistroPlanner, files: SourceFile[], options: PlanOptions = {}): MigrationPlan {
  return planner.plan(planner.read(files), options);
}

/** The file an --out artifact holds after a step. */
function afterStep(plan: MigrationPlan, step: string, file: string): string {
  const artifact = plan.artifacts.find((a) => a.path.endsWith(`-${step}/${file}`));
  if (!artifact) throw new Error(`no artifact for ${step}/${file}`);
  return artifact.content;
}

const minorOf = (v: string): number => parseKubernetesVersion(v).minor;

/** Every kube-apiserver-arg of a provisioning Cluster, global and per selector entry. */
function apiserverArgs(cluster: JsonRecord): string[] {
  const rke = (cluster.spec as JsonRecord).rkeConfig as JsonRecord;
  const configs = [
    rke.machineGlobalConfig,
    ...((rke.machineSelectorConfig as unknown[] | undefined) ?? []).map((e) =>
      isRecord(e) ? e.config : undefined,
    ),
  ];
  return configs.flatMap((c) => (isRecord(c) ? argList(c['kube-apiserver-arg']) : []));
}

describe('resolving --target-version into a journey', () => {
  const v126 = parseKubernetesVersion('v1.26.15+rke2r1');

  it('keeps the version without a target or with the same minor', () => {
    expect(resolveTarget('rke2', v126, undefined)).toMatchObject({ upgrade: false, hops: [] });
    expect(resolveTarget('rke2', v126, '1.26')).toMatchObject({ upgrade: false, hops: [] });
  });

  it('folds the next minor into the migration and adds one hop per later minor', () => {
    const plan = resolveTarget('rke2', v126, 'v1.33.5+rke2r1');
    expect(plan.target.raw).toBe('v1.27.16+rke2r2');
    expect(plan.hops.map((h) => h.raw)).toEqual([
      'v1.28.15+rke2r1',
      'v1.29.15+rke2r1',
      'v1.30.14+rke2r4',
      'v1.31.14+rke2r2',
      'v1.32.13+rke2r2',
      'v1.33.5+rke2r1',
    ]);
  });

  it('resolves a bare minor to the newest release it knows, per distribution', () => {
    const kubeadm = resolveTarget('kubeadm', parseKubernetesVersion('v1.26.15'), '1.28');
    expect([kubeadm.target.raw, ...kubeadm.hops.map((h) => h.raw)]).toEqual(['v1.27.16', 'v1.28.15']);
    const rke = resolveTarget('rke', parseKubernetesVersion('v1.26.15-rancher1-1'), 'v1.27');
    expect(rke).toMatchObject({ target: { raw: 'v1.27.16-rancher1-1' }, hops: [] });
  });

  it('refuses what it cannot name or reach, with the reason', () => {
    expect(codeOf(() => resolveTarget('rke2', v126, '1.45'))).toBe('UP-PLAN-TARGET-UNKNOWN');
    expect(codeOf(() => resolveTarget('rke2', v126, 'v1.33.5'))).toBe('UP-PLAN-TARGET-FORMAT');
    expect(codeOf(() => resolveTarget('rke2', v126, '1.25'))).toBe('UP-PLAN-TARGET-DOWNGRADE');
    expect(codeOf(() => resolveTarget('rke', parseKubernetesVersion('v1.26.15-rancher1-1'), '1.32'))).toBe(
      'UP-PLAN-TARGET-UNSUPPORTED',
    );
    // A full release past the table needs --allow-unknown-release; the minors it passes through must be known.
    expect(codeOf(() => resolveTarget('rke2', v126, 'v1.37.1+rke2r1'))).toBe(
      'UP-PLAN-TARGET-UNKNOWN-RELEASE',
    );
    const allow = { allowUnknownRelease: true };
    const far = resolveTarget('rke2', v126, 'v1.37.1+rke2r1', allow);
    expect(far.hops.at(-1)?.raw).toBe('v1.37.1+rke2r1');
    expect(codeOf(() => resolveTarget('rke2', v126, 'v1.38.1+rke2r1', allow))).toBe('UP-PLAN-TARGET-UNKNOWN');
  });

  it('refuses a release newer than the newest it knows, naming that one as the fix (issue 25)', () => {
    const error = errorOf(() => resolveTarget('rke2', v126, 'v1.27.99+rke2r1'));
    expect(error.code).toBe('UP-PLAN-TARGET-UNKNOWN-RELEASE');
    expect(error.hint).toContain('--target-version v1.27.16+rke2r2');
    expect(error.hint).toContain('--allow-unknown-release');
    // A newer build revision of the newest patch is unknown too; an older one is taken as existing.
    expect(codeOf(() => resolveTarget('rke2', v126, 'v1.27.16+rke2r3'))).toBe(
      'UP-PLAN-TARGET-UNKNOWN-RELEASE',
    );
    expect(resolveTarget('rke2', v126, 'v1.27.16+rke2r1').target.raw).toBe('v1.27.16+rke2r1');
    expect(resolveTarget('rke2', v126, 'v1.27.3+rke2r1').target.raw).toBe('v1.27.3+rke2r1');
    const rke = parseKubernetesVersion('v1.26.15-rancher1-1');
    expect(codeOf(() => resolveTarget('rke', rke, 'v1.27.16-rancher1-2'))).toBe(
      'UP-PLAN-TARGET-UNKNOWN-RELEASE',
    );
    expect(codeOf(() => resolveTarget('kubeadm', parseKubernetesVersion('v1.26.15'), 'v1.27.17'))).toBe(
      'UP-PLAN-TARGET-UNKNOWN-RELEASE',
    );
    // A brand-new release passes with the flag, as written.
    const allowed = resolveTarget('rke2', v126, 'v1.27.99+rke2r1', { allowUnknownRelease: true });
    expect(allowed.target.raw).toBe('v1.27.99+rke2r1');
  });

  it('never suggests a release it would refuse in turn (issue 25: --target-version 1.40)', () => {
    for (const distro of ['rke2', 'kubeadm'] as const) {
      const current = parseKubernetesVersion(distro === 'rke2' ? 'v1.26.15+rke2r1' : 'v1.26.15');
      const error = errorOf(() => resolveTarget(distro, current, '1.40'));
      expect(error.code).toBe('UP-PLAN-TARGET-UNKNOWN');
      const suggested = [...(error.hint ?? '').matchAll(/v1\.\d+\.\d+[^\s),;]*/g)].map((m) => m[0]);
      expect(suggested.length).toBeGreaterThan(0);
      for (const release of suggested) expect(() => resolveTarget(distro, current, release)).not.toThrow();
    }
  });
});

describe('RKE2 journey 1.26 → 1.33', () => {
  const file = example('rke2-cluster.yaml');
  const plan = planOf(rke2Planner, [file], { targetVersion: 'v1.33.5+rke2r1' });
  const hops = plan.steps.filter((s) => isUpgradeStepId(s.id));

  it('migrates at 1.27, then raises the minor by one per hop, ending on the target', () => {
    expect(plan.kubernetes.target).toBe('v1.33.5+rke2r1');
    const upgrades = plan.kubernetes.upgrades ?? [];
    expect(upgrades[0]).toMatchObject({ step: 'switch-to-external', version: 'v1.27.16+rke2r2' });
    expect(upgrades.map((u) => minorOf(u.version))).toEqual([27, 28, 29, 30, 31, 32, 33]);
    expect(hops.map((s) => s.id)).toEqual([28, 29, 30, 31, 32, 33].map((m) => `upgrade-kubernetes-1.${m}`));
    // The hops come after the migration is complete and verified.
    expect(plan.steps.findIndex((s) => s.id === 'verify-provider-ids')).toBeLessThan(
      plan.steps.indexOf(hops[0]!),
    );
  });

  it('ends with kubernetesVersion v1.33.5+rke2r1 and no cloud-provider in any kube-apiserver-arg', () => {
    const last = parse(afterStep(plan, 'upgrade-kubernetes-1.33', 'rke2-cluster.yaml')) as JsonRecord;
    expect((last.spec as JsonRecord).kubernetesVersion).toBe('v1.33.5+rke2r1');
    expect(apiserverArgs(last).filter((a) => /cloud-(provider|config)/.test(a))).toEqual([]);
    // Up to 1.32 the flag stays (Rancher's recipe; the release still has it).
    const before = parse(afterStep(plan, 'upgrade-kubernetes-1.32', 'rke2-cluster.yaml')) as JsonRecord;
    expect(apiserverArgs(before)).toContain('cloud-provider=external');
  });

  it('re-pins the CCM to every hop\u2019s minor in a step of its own, after the hop\u2019s roll (decision 0035)', () => {
    const tagAfter = (id: string): string => {
      const cluster = parse(afterStep(plan, id, 'rke2-cluster.yaml')) as JsonRecord;
      const manifest = ((cluster.spec as JsonRecord).rkeConfig as JsonRecord).additionalManifest as string;
      return /tag: (v1\.\d+\.\d+)/.exec(manifest)![1]!;
    };
    const ids = plan.steps.map((s) => s.id);
    let previous = tagAfter('disable-leader-migration');
    for (const hop of hops) {
      const minor = Number(hop.id.split('.').at(-1));
      // The hop moves the version alone: the CCM stays one minor behind, within the skew policy.
      expect(tagAfter(hop.id)).toBe(previous);
      expect(Number(previous.split('.')[1])).toBe(minor - 1);
      const ccm = plan.steps[ids.indexOf(hop.id) + 1]!;
      expect(ccm.id).toBe(`upgrade-ccm-1.${minor}`);
      expect(tagAfter(ccm.id)).toMatch(new RegExp(`^v1\\.${minor}\\.\\d+$`));
      // additionalManifest alone changes, so Rancher restarts no node for it.
      const edit = ccm.changes.find((c) => c.type === 'edit-cluster-definition');
      expect(edit?.type === 'edit-cluster-definition' && edit.patch.map((op) => op.path)).toEqual([
        '/spec/rkeConfig/additionalManifest',
      ]);
      expect(ccm.gates.map((g) => g.type)).toEqual([
        'cluster-rolled-out',
        'daemonset-rolled-out',
        'nodes-initialized',
        'load-balancers-kept',
        'promise-kept',
      ]);
      expect(ccm.undo.changes).toEqual([]);
      previous = tagAfter(ccm.id);
    }
  });

  it('gates every hop on the whole cluster running its release, with a deadline', () => {
    for (const hop of hops) {
      const version = plan.kubernetes.upgrades!.find((u) => u.step === hop.id)!.version;
      const gate = hop.gates.find((g) => g.type === 'kubernetes-version');
      expect(gate).toEqual({
        type: 'kubernetes-version',
        expect: { kubeletVersion: version, gitVersion: version, imageTag: version.replace('+', '-') },
        timeoutSeconds: 3600,
      });
      expect(hop.gates.map((g) => g.type)).toEqual([
        'cluster-rolled-out',
        'kubernetes-version',
        'daemonset-rolled-out',
        'nodes-initialized',
        'load-balancers-kept',
        'promise-kept',
      ]);
      expect(hop.undo.changes).toEqual([]);
    }
    // Every step, not only the hops, ends judged against the promise.
    for (const step of plan.steps) expect(step.gates.at(-1)).toEqual({ type: 'promise-kept' });
    const switched = plan.steps.find((s) => s.id === 'switch-to-external')!;
    expect(switched.gates.map((g) => g.type)).toContain('kubernetes-version');
  });

  it('turns RKE2\u2019s own cloud controller off at the switch (needed from RKE2 1.36, rancher/rke2#10351)', () => {
    const external = planOf(rke2Planner, [file], {
      targetVersion: '1.36',
      keepAwsNodeNaming: false,
    });
    const switched = parse(afterStep(external, 'switch-to-external', 'rke2-cluster.yaml')) as JsonRecord;
    expect(rke2EffectiveConfig(switched, roleLabels(['control-plane']))['disable-cloud-controller']).toBe(
      true,
    );
    // Workers run no server: the setting goes to the control-plane role only.
    expect(rke2EffectiveConfig(switched, roleLabels(['worker']))['disable-cloud-controller']).toBeUndefined();
  });

  it('applies the same hops to a live Cluster as to the file (what the engine re-applies after a 409)', () => {
    const start = rke2Planner.read([file]) as unknown as { cluster: JsonRecord };
    const live = replayObject(rke2Planner, plan, start.cluster, ['grant-migration-lease']) as JsonRecord;
    const fromFile = parse(afterStep(plan, 'upgrade-kubernetes-1.33', 'rke2-cluster.yaml')) as JsonRecord;
    expect((live.spec as JsonRecord).kubernetesVersion).toBe('v1.33.5+rke2r1');
    expect(apiserverArgs(live)).toEqual(apiserverArgs(fromFile));
    // Idempotent: applying a hop again changes nothing.
    const options = stepOptionsFromPlan(plan);
    expect(rke2Planner.applyStep('upgrade-kubernetes-1.33', live, options)).toEqual(live);
  });

  it('removes a user\u2019s own kube-apiserver cloud-config at 1.33 too', () => {
    const text = file.text.replace(
      '      cloud-provider-name: aws # in-tree today\n',
      '      cloud-provider-name: aws # in-tree today\n      kube-apiserver-arg:\n        - cloud-config=/etc/aws.conf\n        - audit-log-maxage=30\n',
    );
    const own = planOf(rke2Planner, [{ path: file.path, text }], { targetVersion: '1.33' });
    const last = parse(afterStep(own, 'upgrade-kubernetes-1.33', 'rke2-cluster.yaml')) as JsonRecord;
    const args = apiserverArgs(last);
    expect(args).toContain('audit-log-maxage=30');
    expect(args.filter((a) => /cloud-(provider|config)/.test(a))).toEqual([]);
  });
});

describe('plans without a journey are unchanged', () => {
  it('gives the same plan for no target and a same-minor target, with no upgrades', () => {
    for (const [planner, name, same] of [
      [rke2Planner, 'rke2-cluster.yaml', '1.26'],
      [rkePlanner, 'rke-cluster.yml', 'v1.26'],
      [kubeadmPlanner, 'kube-controller-manager.yaml', 'v1.26.15'],
    ] as const) {
      const none = planOf(planner, [example(name)]);
      expect(none.kubernetes).not.toHaveProperty('upgrades');
      expect(none.steps.some((s) => isUpgradeStepId(s.id))).toBe(false);
      expect(planOf(planner, [example(name)], { targetVersion: same })).toEqual(none);
    }
  });
});

describe('RKE journey', () => {
  const file = example('rke-cluster.yml');

  it('goes one minor at a time up to RKE\u2019s last, 1.31, moving the CCM along', () => {
    const plan = planOf(rkePlanner, [file], { targetVersion: '1.31' });
    expect(plan.kubernetes.target).toBe('v1.31.1-rancher1-1');
    expect((plan.kubernetes.upgrades ?? []).map((u) => minorOf(u.version))).toEqual([27, 28, 29, 30, 31]);
    const last = parse(afterStep(plan, 'upgrade-kubernetes-1.31', 'rke-cluster.yml')) as JsonRecord;
    expect(last.kubernetes_version).toBe('v1.31.1-rancher1-1');
    const hop = plan.steps.find((s) => s.id === 'upgrade-kubernetes-1.31')!;
    // RKE's kubelets and API server report the plain upstream version; its control plane has no pods.
    expect(hop.gates.find((g) => g.type === 'kubernetes-version')).toMatchObject({
      expect: { kubeletVersion: 'v1.31.1', gitVersion: 'v1.31.1' },
    });
    expect(hop.gates.find((g) => g.type === 'kubernetes-version')).not.toHaveProperty('expect.imageTag');
    expect(hop.changes.map((c) => c.type)).toEqual(['edit-cluster-definition', 'manual', 'manual']);
    // The CCM release of the hop's minor comes from the CCM release table (src/core/ccm).
    const ccmTag = plan.kubernetes.upgrades?.find((u) => u.step === 'upgrade-kubernetes-1.31')?.ccmTag;
    expect(ccmTag).toMatch(/^v1\.31\.\d+$/);
    expect(plan.artifacts.some((a) => a.path === `ccm/values-${ccmTag}.yaml`)).toBe(true);
    expect(plan.findings.find((f) => f.code === 'rke-external-aws-version')?.message).toContain(
      'RKE v1.4.15 / v1.5.0',
    );
    expect(plan.findings.find((f) => f.code === 'rke-end-of-life')?.message).toMatch(
      /31 July 2025.*rke config --list-version --all/,
    );
  });

  it('refuses a target past RKE\u2019s last minor', () => {
    expect(codeOf(() => planOf(rkePlanner, [file], { targetVersion: 'v1.33.5-rancher1-1' }))).toBe(
      'UP-PLAN-TARGET-UNSUPPORTED',
    );
  });
});

describe('kubeadm journey', () => {
  const apiserver: SourceFile = {
    path: 'kube-apiserver.yaml',
    text: `apiVersion: v1
kind: Pod
metadata:
  name: kube-apiserver
  namespace: kube-system
  labels: {component: kube-apiserver, tier: control-plane}
spec:
  containers:
    - name: kube-apiserver
      image: registry.k8s.io/kube-apiserver:v1.26.15
      command:
        - kube-apiserver
        - --advertise-address=10.0.1.10
        - --cloud-provider=aws
        - --cloud-config=/etc/kubernetes/aws.conf
`,
  };
  const plan = planOf(kubeadmPlanner, [example('kube-controller-manager.yaml'), apiserver], {
    targetVersion: '1.33',
  });
  const hops = plan.steps.filter((s) => isUpgradeStepId(s.id));

  it('upgrades the whole control plane in the migration roll, a person moving kube-apiserver and the kubelets first', () => {
    const roll = plan.steps.find((s) => s.id === 'roll-control-plane')!;
    expect(roll.changes.map((c) => c.type)).toEqual(['write-file', 'manual', 'write-file', 'write-file']);
    const person = roll.changes[1]!;
    expect(person.type === 'manual' && person.instructions).toContain(
      'registry.k8s.io/kube-apiserver:v1.27.16 and --cloud-provider=external',
    );
    expect(person.type === 'manual' && person.instructions).toContain(
      'apt-get install -y kubelet=1.27.16-1.1',
    );
    expect(roll.gates[0]).toMatchObject({ type: 'kubernetes-version', expect: { imageTag: 'v1.27.16' } });
  });

  it('has one hop per minor to 1.33, each writing KCM and CCM after the person\u2019s step', () => {
    expect(hops.map((s) => s.id)).toEqual([28, 29, 30, 31, 32, 33].map((m) => `upgrade-kubernetes-1.${m}`));
    for (const hop of hops) {
      expect(hop.changes.map((c) => c.type)).toEqual(['manual', 'write-file', 'write-file']);
      expect(hop.gates.map((g) => g.type)).toEqual([
        'kubernetes-version',
        'control-plane-flags',
        'ccm-static-pods',
        'nodes-initialized',
        'load-balancers-kept',
        'promise-kept',
      ]);
      // The hop waits for the CCM pod its manifest describes: the gate's tag is the file's.
      const written = /cloud-controller-manager:(\S+)/.exec(
        afterStep(plan, hop.id, 'cloud-controller-manager.yaml'),
      )?.[1];
      expect(hop.gates.find((g) => g.type === 'ccm-static-pods')).toEqual({
        type: 'ccm-static-pods',
        expect: { imageTag: written },
        timeoutSeconds: 900,
      });
    }
    const kcm = parse(
      afterStep(plan, 'upgrade-kubernetes-1.33', 'kube-controller-manager.yaml'),
    ) as JsonRecord;
    const container = ((kcm.spec as JsonRecord).containers as JsonRecord[])[0]!;
    expect(container.image).toBe('registry.k8s.io/kube-controller-manager:v1.33.13');
    const ccm = afterStep(plan, 'upgrade-kubernetes-1.33', 'cloud-controller-manager.yaml');
    expect(ccm).toMatch(/cloud-controller-manager:v1\.33\.\d+/);
  });

  it('gives each person step as data too: the manifests, the kubelet package, kubeadm-config', () => {
    const roll = plan.steps.find((s) => s.id === 'roll-control-plane')!.changes[1]!;
    expect(roll.type === 'manual' && roll.actions).toEqual([
      {
        type: 'edit-static-pod',
        path: '/etc/kubernetes/manifests/kube-apiserver.yaml',
        container: 'kube-apiserver',
        image: 'registry.k8s.io/kube-apiserver:v1.27.16',
        setFlags: { 'cloud-provider': 'external' },
      },
      {
        type: 'edit-static-pod',
        path: '/etc/kubernetes/manifests/kube-scheduler.yaml',
        container: 'kube-scheduler',
        image: 'registry.k8s.io/kube-scheduler:v1.27.16',
      },
      {
        type: 'kubelet',
        flagsFile: '/var/lib/kubelet/kubeadm-flags.env',
        setFlags: { 'cloud-provider': 'external' },
        install: { version: 'v1.27.16', package: '1.27.16-1.1' },
      },
      {
        type: 'edit-kubeadm-config',
        fields: [
          { path: 'kubernetesVersion', value: 'v1.27.16' },
          { path: 'controllerManager.extraArgs.cloud-provider', value: 'external' },
          { path: 'apiServer.extraArgs.cloud-provider', value: 'external' },
        ],
      },
    ]);
    // Every action restates its instructions: the package the prose names is the one the data installs.
    for (const hop of hops) {
      const person = hop.changes[0]!;
      if (person.type !== 'manual') throw new Error(`${hop.id} starts with ${person.type}`);
      const kubelet = person.actions?.find((a) => a.type === 'kubelet');
      expect(kubelet?.type === 'kubelet' && kubelet.install).toBeDefined();
      if (kubelet?.type === 'kubelet' && kubelet.install)
        expect(person.instructions).toContain(`apt-get install -y kubelet=${kubelet.install.package}`);
      const config = person.actions?.find((a) => a.type === 'edit-kubeadm-config');
      expect(config?.type === 'edit-kubeadm-config' && config.fields[0]).toEqual({
        path: 'kubernetesVersion',
        value: kubelet?.type === 'kubelet' && kubelet.install?.version,
      });
    }
  });

  it('drops --cloud-provider and --cloud-config from kube-apiserver at 1.33 (kubernetes/kubernetes#130162)', () => {
    const hop33 = hops.at(-1)!;
    const person = hop33.changes[0]!;
    expect(person.type === 'manual' && person.instructions).toContain(
      'remove --cloud-provider and --cloud-config (kube-apiserver 1.33 removed them',
    );
    const hop32 = hops.at(-2)!.changes[0]!;
    expect(hop32.type === 'manual' && hop32.instructions).not.toContain('--cloud-config');
    expect(person.type === 'manual' && person.actions?.[0]).toEqual({
      type: 'edit-static-pod',
      path: '/etc/kubernetes/manifests/kube-apiserver.yaml',
      container: 'kube-apiserver',
      image: 'registry.k8s.io/kube-apiserver:v1.33.13',
      removeFlags: ['cloud-provider', 'cloud-config'],
    });
    const reference = afterStep(plan, 'upgrade-kubernetes-1.33', 'kube-apiserver.yaml');
    expect(reference).toContain('kube-apiserver:v1.33.13');
    expect(reference).not.toMatch(/--cloud-(provider|config)/);
    expect(reference).toContain('--advertise-address=10.0.1.10');
  });
});
