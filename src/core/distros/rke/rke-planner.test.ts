import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { UprootError } from '../../../errors/index.js';
import { stepOptionsFromPlan } from '../distro.js';
import { jsonPatchBetween } from '../shared/plan-building.js';
import { codeOf, example, planFile, replayObject, replayText } from '../shared/test-support/examples.js';
import { rkeEffectiveSettings, rkeExternalProblems } from './effective-config.js';
import { rkePlanner } from './index.js';
import type { RkeDefinition } from './rke-cluster.js';

const planOf = planFile<RkeDefinition>(rkePlanner, 'cluster.yml');

describe.each([
  ['rke-cluster.yml', [] as string[]],
  ['rancher-rke-cluster.yaml', ['rancher_kubernetes_engine_config']],
])('RKE plan of %s', (name, prefix) => {
  const file = example(name);
  const { def, plan } = planOf(file.text);
  const rkePrefix = prefix.length ? `/${prefix.join('/')}` : '';

  it('ends external on every component, with no leader-migration extra_arg', () => {
    const final = replayObject(rkePlanner, plan, def.document);
    expect(rkeExternalProblems(final)).toEqual([]);
    expect(rkeEffectiveSettings(final)).toMatchObject({
      cloudProviderName: 'external-aws',
      useInstanceMetadataHostname: true,
    });
  });

  it('enables leader migration while the provider is still aws', () => {
    const enabled = rkePlanner.applyStep('enable-leader-migration', def.document, stepOptionsFromPlan(plan));
    expect(rkeEffectiveSettings(enabled)).toMatchObject({
      kcmLeaderMigration: true,
      kubeControllerManager: 'aws',
    });
  });

  it('changes only cloud_provider and keeps comments and other extra_args', () => {
    const final = replayText(rkePlanner, plan, file.text);
    const paths = jsonPatchBetween(parse(file.text), parse(final)).map((op) => op.path);
    expect(paths.length).toBeGreaterThan(0);
    for (const path of paths) expect(path.startsWith(`${rkePrefix}/cloud_provider`)).toBe(true);
    for (const comment of file.text.split('\n').filter((l) => l.includes('#')))
      expect(final).toContain(comment);
  });

  it('installs the CCM with helm and the RKE selectors, image pinned', () => {
    const install = plan.steps.find((s) => s.id === 'install-ccm')!;
    expect(install.changes[0]).toMatchObject({
      type: 'manual',
      instructions: expect.stringContaining('helm upgrade --install'),
    });
    const values = parse(plan.artifacts.find((a) => a.path === 'ccm/values.yaml')!.content) as Record<
      string,
      unknown
    >;
    expect(values).toMatchObject({
      nodeSelector: {
        'node-role.kubernetes.io/controlplane': 'true',
        'node-role.kubernetes.io/control-plane': null,
      },
      image: { tag: plan.ccm.installTag },
      args: expect.arrayContaining(['--enable-leader-migration=true', '--cloud-provider=aws']),
    });
    expect(plan.steps.find((s) => s.id === 'cordon-control-plane')!.changes[0]).toMatchObject({
      selector: 'node-role.kubernetes.io/controlplane=true',
    });
  });
});

const CLUSTER_YML = `kubernetes_version: v1.26.15-rancher1-1
nodes:
  - address: 10.0.0.1
    role: [controlplane, etcd, worker]
    hostname_override: ip-10-0-0-1.ec2.internal
cloud_provider:
  name: aws
`;

describe('RKE node names and helm-controller', () => {
  it('sets useInstanceMetadataHostname false when nodes set hostname_override, with a warning', () => {
    const { def, plan } = planOf(CLUSTER_YML);
    expect(plan.decisions?.useInstanceMetadataHostname).toBe(false);
    expect(plan.findings.map((f) => f.code)).toContain('custom-node-names');
    const final = replayObject(rkePlanner, plan, def.document);
    expect(rkeEffectiveSettings(final).useInstanceMetadataHostname).toBe(false);
  });

  it('refuses to combine custom node names with --use-instance-metadata-hostname', () => {
    try {
      planOf(CLUSTER_YML, { useInstanceMetadataHostname: true });
      expect.unreachable();
    } catch (error) {
      expect(UprootError.is(error) && error.code).toBe('UP-PLAN-RKE-NODE-NAMES');
      expect(UprootError.is(error) && error.location).toMatchObject({
        line: 5,
        value: 'ip-10-0-0-1.ec2.internal',
      });
    }
  });

  it('applies a HelmChart when the cluster runs helm-controller', () => {
    const { plan } = planOf(`${CLUSTER_YML}addons_include:\n  - https://example.com/helm-controller.yaml\n`);
    expect(plan.steps.find((s) => s.id === 'install-ccm')!.changes[0]).toMatchObject({
      type: 'apply-object',
      api: 'downstream',
      object: { kind: 'HelmChart' },
    });
  });

  it('writes kubernetes_version and moves the CCM with --target-version', () => {
    const { def, plan } = planOf(CLUSTER_YML, { targetVersion: 'v1.27.16-rancher1-1' });
    const final = replayObject(rkePlanner, plan, def.document) as Record<string, unknown>;
    expect(final.kubernetes_version).toBe('v1.27.16-rancher1-1');
    expect(plan.artifacts.map((a) => a.path)).toContain('ccm/values-v1.27.10.yaml');
  });

  it('gives nothing to do for external-aws, and refuses bad input at its line', () => {
    expect(planOf(CLUSTER_YML.replace('name: aws', 'name: external-aws')).plan.outcome.type).toBe(
      'nothing-to-do',
    );
    expect(codeOf(() => planOf(CLUSTER_YML.replace('kubernetes_version: v1.26.15-rancher1-1\n', '')))).toBe(
      'UP-PLAN-RKE-VERSION',
    );
    expect(codeOf(() => planOf(CLUSTER_YML, { keepAwsNodeNaming: true }))).toBe('UP-PLAN-FLAG-DISTRO');
    expect(codeOf(() => planOf(`${CLUSTER_YML}services:\n  kube-controller:\n    extra_args: [a]\n`))).toBe(
      'UP-PLAN-RKE-FIELD',
    );
  });
});
