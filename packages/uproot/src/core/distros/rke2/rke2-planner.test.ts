import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { UprootError } from '../../../errors/index.js';
import { stepOptionsFromPlan } from '../distro.js';
import { jsonPatchBetween } from '../shared/plan-building.js';
import {
  changedLines,
  codeOf,
  example,
  planFile,
  replayObject,
  replayText,
} from '../shared/test-support/examples.js';
import { externalProblems, rke2NodeKinds, rke2EffectiveSettings } from './effective-config.js';
import { rke2Planner } from './index.js';
import { roleLabels } from './machine-selector.js';
import type { Rke2Definition } from './rke2-cluster.js';

const EXAMPLE = example('rke2-cluster.yaml');

const planOf = planFile<Rke2Definition>(rke2Planner, 'cluster.yaml');

const MINIMAL = `apiVersion: provisioning.cattle.io/v1
kind: Cluster
metadata: {name: c1, namespace: fleet-default}
spec:
  kubernetesVersion: v1.26.15+rke2r1
  rkeConfig:
    machineGlobalConfig:
      cloud-provider-name: aws
`;

describe('RKE2 plan of the example cluster', () => {
  const { def, plan } = planOf(EXAMPLE.text);

  it('has the steps in order, the pinned CCM and the RKE2 decisions', () => {
    expect(plan.steps.map((s) => s.id)).toEqual([
      'grant-migration-lease',
      'enable-leader-migration',
      'cordon-control-plane',
      'install-ccm',
      'wait-ccm-rollout',
      'switch-to-external',
      'disable-leader-migration',
      'verify-provider-ids',
    ]);
    expect(plan.ccm).toMatchObject({
      installTag: 'v1.26.14',
      targetTag: 'v1.26.14',
      leaderMigrationConfig: 'default',
    });
    expect(plan.decisions).toMatchObject({ keepAwsNodeNaming: true, upgrade: false });
    const cordon = plan.steps.find((s) => s.id === 'cordon-control-plane')!;
    expect(cordon.changes[0]).toEqual(
      expect.objectContaining({
        type: 'cordon-nodes',
        selector: 'node-role.kubernetes.io/control-plane=true',
      }),
    );
    const switched = plan.steps.find((s) => s.id === 'switch-to-external')!;
    expect(switched.gates.map((g) => g.type)).toEqual([
      'cluster-rolled-out',
      'control-plane-flags',
      'migration-lease-held',
      'daemonset-rolled-out',
      'nodes-initialized',
      'load-balancers-kept',
      'no-ownership-overlap',
      'promise-kept',
    ]);
  });

  it('ends with every node kind external on kubelet, KCM and apiserver, and no leader migration on KCM', () => {
    const final = replayObject(rke2Planner, plan, def.cluster);
    for (const kind of rke2NodeKinds(final)) expect(externalProblems(final, kind)).toEqual([]);
    expect(plan.findings.filter((f) => f.code === 'not-external-after-plan')).toEqual([]);
  });

  it('had leader migration on KCM (and in-tree) after enable-leader-migration', () => {
    const options = stepOptionsFromPlan(plan);
    const enabled = rke2Planner.applyStep('enable-leader-migration', def.cluster, options);
    const s = rke2EffectiveSettings(
      enabled,
      roleLabels(['control-plane', 'etcd'], { pool: 'control-plane' }),
    );
    expect(s).toMatchObject({ kcmLeaderMigration: true, kubeControllerManager: 'aws' });
  });

  it('changes only the intended fields and keeps every comment and other manifest', () => {
    const final = replayText(rke2Planner, plan, EXAMPLE.text);
    const before = parse(EXAMPLE.text) as Record<string, unknown>;
    const after = parse(final) as Record<string, unknown>;
    const paths = jsonPatchBetween(before, after).map((op) => op.path);
    for (const path of paths) {
      expect(path).toMatch(/^\/spec\/rkeConfig\/(machineSelectorConfig|additionalManifest)/);
    }
    for (const comment of EXAMPLE.text.split('\n').filter((l) => l.includes('#')))
      expect(final).toContain(comment);
    const manifest = (after.spec as { rkeConfig: { additionalManifest: string } }).rkeConfig
      .additionalManifest;
    const original = (before.spec as { rkeConfig: { additionalManifest: string } }).rkeConfig
      .additionalManifest;
    expect(manifest.startsWith(original)).toBe(true);
    expect(manifest).toContain('kind: HelmChart');
    const { removed } = changedLines(EXAMPLE.text, final);
    // The only line the whole plan rewrites is the KCM arg entry's neighbourhood, not user settings.
    expect(removed.filter((l) => l.trim() !== '')).toEqual([]);
  });

  it('writes the same result through the file as through the object', () => {
    const viaText = parse(replayText(rke2Planner, plan, EXAMPLE.text));
    expect(viaText).toEqual(replayObject(rke2Planner, plan, def.cluster));
  });

  it('each step is idempotent (the engine may re-apply it)', () => {
    const options = stepOptionsFromPlan(plan);
    let state: unknown = def.cluster;
    for (const step of plan.steps) {
      const once = rke2Planner.applyStep(step.id, state, options);
      expect(rke2Planner.applyStep(step.id, once, options)).toEqual(once);
      state = once;
    }
  });

  it('re-applied to a live object edited meanwhile, keeps the concurrent edits', () => {
    const live = structuredClone(def.cluster) as {
      metadata: Record<string, unknown>;
      spec: { rkeConfig: { machineSelectorConfig: unknown[] } };
    };
    live.metadata.resourceVersion = '12345';
    live.spec.rkeConfig.machineSelectorConfig.push({
      config: { 'kubelet-arg': ['image-gc-high-threshold=80'] },
    });
    const next = rke2Planner.applyStep(
      'enable-leader-migration',
      live,
      stepOptionsFromPlan(plan),
    ) as typeof live;
    expect(next.metadata.resourceVersion).toBe('12345');
    expect(JSON.stringify(next)).toContain('image-gc-high-threshold=80');
    expect(JSON.stringify(next)).toContain('enable-leader-migration');
  });

  it('plans nothing for the cluster it produced, and resumes a half-done one', () => {
    const final = replayText(rke2Planner, plan, EXAMPLE.text);
    expect(planOf(final).plan.outcome.type).toBe('nothing-to-do');
    // Issue 25: a --target-version on an external cluster is judged, then refused plainly, never ignored.
    expect(planOf(final, { targetVersion: '1.26' }).plan.outcome.type).toBe('nothing-to-do');
    for (const target of ['1.33', '1.40', 'v1.27.99+rke2r1']) {
      expect(codeOf(() => planOf(final, { targetVersion: target }))).not.toBe('no error');
    }
    expect(codeOf(() => planOf(final, { targetVersion: '1.25' }))).toBe('UP-PLAN-TARGET-DOWNGRADE');
    expect(codeOf(() => planOf(final, { targetVersion: '1.40' }))).toBe('UP-PLAN-TARGET-UNKNOWN');
    const upgrade = (() => {
      try {
        planOf(final, { targetVersion: '1.28' });
      } catch (error) {
        return error as UprootError;
      }
      throw new Error('expected a refusal');
    })();
    expect(upgrade.code).toBe('UP-PLAN-EXTERNAL-UPGRADE');
    expect(upgrade.hint).toContain('v1.27.16+rke2r2 → v1.28.15+rke2r1');
    const half = rke2Planner.applyStepToText(
      'enable-leader-migration',
      EXAMPLE.text,
      stepOptionsFromPlan(plan),
    );
    const resumed = planOf(half).plan;
    expect(resumed.outcome.type).toBe('migrate');
    expect(resumed.steps.find((s) => s.id === 'enable-leader-migration')!.changes).toEqual([]);
  });
});

describe('RKE2 plan of the example with --no-keep-aws-node-naming', () => {
  it('switches with cloud-provider-name external and still ends external everywhere, comments kept', () => {
    const { def, plan } = planOf(EXAMPLE.text, { keepAwsNodeNaming: false });
    const final = replayObject(rke2Planner, plan, def.cluster);
    for (const kind of rke2NodeKinds(final)) expect(externalProblems(final, kind)).toEqual([]);
    expect(plan.findings.map((f) => f.code)).toContain('node-naming-changes');
    const text = replayText(rke2Planner, plan, EXAMPLE.text);
    expect(text).toContain('cloud-provider-name: external # in-tree today');
    for (const comment of EXAMPLE.text.split('\n').filter((l) => l.includes('# '))) {
      expect(text).toContain(comment.replace('cloud-provider-name: aws', 'cloud-provider-name: external'));
    }
  });
});

describe('RKE2 merging into what the user has', () => {
  it('seeds a new control-plane entry with the KCM args every machine inherited', () => {
    const text = MINIMAL + `      kube-controller-manager-arg: [terminated-pod-gc-threshold=100]\n`;
    const { def, plan } = planOf(text);
    const enabled = rke2Planner.applyStep(
      'enable-leader-migration',
      def.cluster,
      stepOptionsFromPlan(plan),
    ) as {
      spec: { rkeConfig: { machineSelectorConfig: { config: Record<string, unknown> }[] } };
    };
    expect(enabled.spec.rkeConfig.machineSelectorConfig[0]!.config['kube-controller-manager-arg']).toEqual([
      'terminated-pod-gc-threshold=100',
      'enable-leader-migration',
    ]);
  });

  it('adds the override to other entries that set the same key for those machines', () => {
    const text = `${MINIMAL}    machineSelectorConfig:
      - config:
          kubelet-arg: [node-labels=gpu=true]
        machineLabelSelector:
          matchLabels: {pool: gpu}
`;
    const { def, plan } = planOf(text);
    const final = replayObject(rke2Planner, plan, def.cluster);
    const gpu = rke2EffectiveSettings(final, roleLabels(['worker'], { pool: 'gpu' }));
    expect(gpu.kubelet).toBe('external');
    expect(JSON.stringify(final)).toContain('node-labels=gpu=true');
  });

  it('uses cloud-provider-name external when node names are set (or when asked)', () => {
    const text = MINIMAL + '      node-name: custom\n';
    const { def, plan } = planOf(text);
    expect(plan.decisions?.keepAwsNodeNaming).toBe(false);
    const final = replayObject(rke2Planner, plan, def.cluster) as {
      spec: { rkeConfig: Record<string, unknown> };
    };
    expect(final.spec.rkeConfig.machineGlobalConfig).toMatchObject({ 'cloud-provider-name': 'external' });
    expect(final.spec.rkeConfig.machineSelectorConfig).toEqual([]);
    expect(planOf(MINIMAL, { keepAwsNodeNaming: false }).plan.decisions?.keepAwsNodeNaming).toBe(false);
  });

  it('edits an existing CCM HelmChart instead of adding a second one, with a warning', () => {
    const text = `${MINIMAL}    additionalManifest: |
      apiVersion: helm.cattle.io/v1
      kind: HelmChart
      metadata:
        name: aws-cloud-controller-manager
        namespace: kube-system
      spec:
        chart: aws-cloud-controller-manager
        repo: https://kubernetes.github.io/cloud-provider-aws
        valuesContent: |-
          # mine
          args:
            - --v=4
`;
    const { def, plan } = planOf(text);
    expect(plan.findings.map((f) => f.code)).toContain('ccm-chart-present');
    const installed = rke2Planner.applyStep('install-ccm', def.cluster, stepOptionsFromPlan(plan)) as {
      spec: { rkeConfig: { additionalManifest: string } };
    };
    const docs = parseAllDocuments(installed.spec.rkeConfig.additionalManifest);
    expect(docs).toHaveLength(1);
    const values = (docs[0]!.toJS() as { spec: { valuesContent: string } }).spec.valuesContent;
    expect(values).toContain('# mine');
    expect(parse(values)).toMatchObject({
      args: expect.arrayContaining(['--v=4', '--enable-leader-migration=true']),
      image: { tag: 'v1.26.14' },
    });
  });

  it('reads a List from kubectl and moves the CCM with --target-version', () => {
    const list = `apiVersion: v1\nkind: List\nitems:\n- ${MINIMAL.trimEnd().split('\n').join('\n  ')}\n`;
    const { plan } = planOf(list, { targetVersion: 'v1.27.16+rke2r1' });
    expect(plan.kubernetes).toEqual({
      current: 'v1.26.15+rke2r1',
      target: 'v1.27.16+rke2r1',
      upgrades: [{ step: 'switch-to-external', version: 'v1.27.16+rke2r1', ccmTag: 'v1.27.10' }],
    });
    expect(plan.ccm).toMatchObject({ installTag: 'v1.26.14', targetTag: 'v1.27.10' });
    const switched = plan.steps.find((s) => s.id === 'switch-to-external')!;
    const edit = switched.changes.find((c) => c.type === 'edit-cluster-definition');
    expect(edit?.type === 'edit-cluster-definition' && edit.diff).toContain(
      '+    kubernetesVersion: v1.27.16+rke2r1',
    );
  });
});

describe('RKE2 version gates and bad input', () => {
  const withVersion = (v: string) => MINIMAL.replace('v1.26.15+rke2r1', v);

  it('refuses versions without leader migration, or without a default configuration', () => {
    expect(codeOf(() => planOf(withVersion('v1.20.15+rke2r1')))).toBe('UP-PLAN-VERSION-TOO-OLD');
    expect(codeOf(() => planOf(withVersion('v1.21.14+rke2r1')))).toBe('UP-PLAN-VERSION-NEEDS-CONFIG-FILE');
    expect(codeOf(() => planOf(withVersion('v1.27.16+rke2r1')))).toBe('UP-PLAN-VERSION-NO-IN-TREE');
  });

  it('refuses targets that go back or are not RKE2 releases, and resolves a bare minor', () => {
    expect(codeOf(() => planOf(MINIMAL, { targetVersion: 'v1.25.1+rke2r1' }))).toBe(
      'UP-PLAN-TARGET-DOWNGRADE',
    );
    expect(codeOf(() => planOf(MINIMAL, { targetVersion: 'v1.27.16' }))).toBe('UP-PLAN-TARGET-FORMAT');
    expect(planOf(MINIMAL, { targetVersion: '1.27' }).plan.kubernetes.target).toBe('v1.27.16+rke2r2');
    expect(planOf(MINIMAL, { targetVersion: '1.26' }).plan.kubernetes.target).toBe('v1.26.15+rke2r1');
    expect(codeOf(() => planOf(MINIMAL, { targetVersion: '1.40' }))).toBe('UP-PLAN-TARGET-UNKNOWN');
  });

  it('refuses a CCM tag across the 1.28 rename (the default configuration would be unsafe)', () => {
    expect(codeOf(() => planOf(MINIMAL, { ccmImageTag: 'v1.30.2' }))).toBe('UP-PLAN-CCM-TAG-UNSAFE');
  });

  it('locates field errors at their line', () => {
    const bad = MINIMAL.replace(
      '      cloud-provider-name: aws\n',
      '      cloud-provider-name: aws\n      kubelet-arg: {a: 1}\n',
    );
    try {
      planOf(bad);
      expect.unreachable();
    } catch (error) {
      expect(UprootError.is(error) && error.location).toMatchObject({ file: 'cluster.yaml', line: 9 });
    }
    expect(codeOf(() => planOf(MINIMAL.replace('v1.26.15+rke2r1', 'v1.26.15+k3s1')))).toBe(
      'UP-PLAN-RKE2-K3S',
    );
    expect(codeOf(() => planOf(MINIMAL.replace('cloud-provider-name: aws', 'cni: calico')))).toBe(
      'UP-PLAN-NOT-AWS',
    );
  });
});

describe('RKE2: cloud-provider-config carried into the CCM, route and nodeipam stated', () => {
  const withConfig = `${MINIMAL}      cloud-provider-config: |
        [Global]
        KubernetesClusterID = legacy-id
        DisableStrictZoneCheck = true
`;

  it('adds the ConfigMap to additionalManifest before the chart and mounts it, re-applied the same live', () => {
    const { def, plan } = planOf(withConfig, { targetVersion: 'v1.27.16+rke2r1' });
    // The install release (v1.26.14) still reads DisableStrictZoneCheck, so it is carried, with a warning.
    expect(plan.decisions?.cloudConfig).toBe(
      '[Global]\nKubernetesClusterID = legacy-id\nDisableStrictZoneCheck = true\n',
    );
    const final = replayObject(rke2Planner, plan, def.cluster) as {
      spec: { rkeConfig: { additionalManifest: string } };
    };
    const docs = parseAllDocuments(final.spec.rkeConfig.additionalManifest).map((d) => d.toJS());
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`)).toEqual([
      'ConfigMap/aws-cloud-config',
      'HelmChart/aws-cloud-controller-manager',
    ]);
    expect(docs[0].data['cloud.conf']).toContain('KubernetesClusterID = legacy-id');
    const values = parse(docs[1].spec.valuesContent) as { args: string[]; extraVolumes: unknown[] };
    expect(values.args).toContain('--cloud-config=/etc/kubernetes/aws-cloud-config/cloud.conf');
    expect(values.extraVolumes).toEqual([
      { name: 'aws-cloud-config', configMap: { name: 'aws-cloud-config' } },
    ]);
    // v1.27.10 runs after the switch and no longer reads DisableStrictZoneCheck (removed in v1.27.1).
    const notRead = plan.findings.filter((f) => f.code === 'cloud-config-not-read');
    expect(notRead.map((f) => f.field)).toEqual(['cloud-provider-config.DisableStrictZoneCheck']);
  });

  it('says it cannot carry a config kept in a Secret', () => {
    const { plan } = planOf(`${MINIMAL}      cloud-provider-config: secret://fleet-default:aws-config\n`);
    expect(plan.findings.find((f) => f.code === 'cloud-config-in-secret')?.message).toMatch(
      /secret:\/\/fleet-default:aws-config/,
    );
    expect(plan.decisions?.cloudConfig).toBeUndefined();
  });

  it('states route and nodeipam from RKE2’s KCM defaults, and moves route with the cluster’s own args', () => {
    const { plan } = planOf(MINIMAL);
    expect(plan.findings.map((f) => f.code)).toEqual(
      expect.arrayContaining(['route-controller', 'nodeipam-controller']),
    );
    expect(plan.decisions?.ccmArgs).toEqual(['--configure-cloud-routes=false']);
    const routes = planOf(
      `${MINIMAL}      cluster-cidr: 10.50.0.0/16\n      kube-controller-manager-arg: [configure-cloud-routes=true]\n`,
    ).plan;
    expect(routes.decisions?.ccmArgs).toEqual([
      '--allocate-node-cidrs=true',
      '--cluster-cidr=10.50.0.0/16',
      '--configure-cloud-routes=true',
    ]);
    expect(codeOf(() => planOf(MINIMAL, { withNodeIpam: true }))).toBe('UP-PLAN-NODEIPAM-CCM');
  });
});
