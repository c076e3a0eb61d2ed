import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { UprootError } from '../../../errors/index.js';
import { stepOptionsFromPlan } from '../distro.js';
import { jsonPatchBetween } from '../shared/plan-building.js';
import { codeOf, example, planFile, replayObject, replayText } from '../shared/test-support/examples.js';
import { rkeEffectiveSettings, rkeExternalProblems } from './effective-config.js';
import { knowsExternalAws, rkePlanner, rkeVersionFromOutput } from './index.js';
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
    expect(install.changes.at(-1)).toMatchObject({
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

  it('writes kubernetes_version with --target-version and moves the CCM only when leader migration goes off', () => {
    const { def, plan } = planOf(CLUSTER_YML, { targetVersion: 'v1.27.16-rancher1-1' });
    const final = replayObject(rkePlanner, plan, def.document) as Record<string, unknown>;
    expect(final.kubernetes_version).toBe('v1.27.16-rancher1-1');
    const switched = plan.steps.find((s) => s.id === 'switch-to-external');
    // The switch leaves the CCM at its install tag (one handover while rke up rolls the KCMs) ...
    expect(JSON.stringify(switched?.changes)).not.toMatch(/v1\.27\.10|aws-cloud-controller-manager/);
    expect(plan.artifacts.map((a) => a.path)).not.toContain('ccm/values-v1.27.10.yaml');
    // ... and disable-leader-migration moves it, in the same rollout that turns leader migration off.
    const finalValues = plan.artifacts.find((a) => a.path === 'ccm/values-without-leader-migration.yaml');
    expect(finalValues?.content).toContain('v1.27.10');
    expect(finalValues?.content).not.toContain('enable-leader-migration');
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

describe('RKE: in-tree settings carried into the CCM, and who runs route and nodeipam', () => {
  const withConfig = `${CLUSTER_YML}  awsCloudProvider:
    global:
      kubernetes-cluster-id: legacy-id
      elb-security-group: sg-0elb
      disable-strict-zone-check: true
      disable-security-group-ingress: false
    service_override:
      ec2:
        service: ec2
        region: us-east-1
        url: https://ec2.vpce.example
`;

  it('renders the settings the CCM reads into a ConfigMap mounted with --cloud-config, applied before the chart', () => {
    const { plan } = planOf(withConfig);
    const install = plan.steps.find((s) => s.id === 'install-ccm')!;
    const configMap = install.changes[0] as unknown as {
      type: string;
      object: { data: Record<string, string> };
    };
    expect(configMap.type).toBe('apply-object');
    expect(configMap.object).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'aws-cloud-config' } });
    const text = configMap.object.data['cloud.conf']!;
    expect(text).toContain('KubernetesClusterID = legacy-id');
    expect(text).toContain('ElbSecurityGroup = sg-0elb');
    expect(text).toContain('[ServiceOverride "ec2"]');
    expect(text).toContain('URL = https://ec2.vpce.example');
    // v1.26.14 still reads it (removed in v1.27.1); false booleans are not written (omitempty).
    expect(text).toContain('DisableStrictZoneCheck = true');
    expect(text).not.toContain('DisableSecurityGroupIngress');
    const values = parse(plan.artifacts.find((a) => a.path === 'ccm/values.yaml')!.content) as Record<
      string,
      unknown
    >;
    expect(values.args).toContain('--cloud-config=/etc/kubernetes/aws-cloud-config/cloud.conf');
    expect(values.extraVolumes).toEqual([
      { name: 'aws-cloud-config', configMap: { name: 'aws-cloud-config' } },
    ]);
    expect(values.extraVolumeMounts).toEqual([
      { name: 'aws-cloud-config', mountPath: '/etc/kubernetes/aws-cloud-config', readOnly: true },
    ]);
    expect(plan.findings.find((f) => f.code === 'cloud-config-carried')?.message).toMatch(
      /KubernetesClusterID = legacy-id, ElbSecurityGroup = sg-0elb/,
    );
  });

  it('names a setting the pinned CCM no longer reads (v1.26.14 still reads DisableStrictZoneCheck; v1.27.10 not)', () => {
    expect(
      planOf(withConfig)
        .plan.findings.filter((f) => f.code === 'cloud-config-not-read')
        .map((f) => f.field),
    ).toEqual([]);
    const upgraded = planOf(withConfig, { targetVersion: 'v1.27.16-rancher1-1' }).plan;
    const notRead = upgraded.findings.filter((f) => f.code === 'cloud-config-not-read');
    expect(notRead.map((f) => f.field)).toEqual(['cloud_provider.awsCloudProvider.DisableStrictZoneCheck']);
    expect(notRead[0]!.message).toMatch(/releases v1\.27\.10 of this plan do not read it/);
  });

  it('states that route runs nowhere and nodeipam stays in kube-controller-manager (RKE defaults)', () => {
    const { plan } = planOf(CLUSTER_YML);
    const byCode = Object.fromEntries(plan.findings.map((f) => [f.code, f.message]));
    expect(byCode['route-controller']).toMatch(
      /^route runs in neither manager.*--configure-cloud-routes=false/,
    );
    expect(byCode['nodeipam-controller']).toMatch(
      /^nodeipam stays in kube-controller-manager.*--cluster-cidr=10\.42\.0\.0\/16/,
    );
    expect(plan.decisions?.ccmArgs).toEqual(['--configure-cloud-routes=false']);
  });

  it('moves route to the CCM with the KCM flags when the cluster uses cloud routes', () => {
    const routes = `${CLUSTER_YML}services:\n  kube-controller:\n    cluster_cidr: 10.99.0.0/16\n    extra_args:\n      configure-cloud-routes: "true"\n`;
    const { plan } = planOf(routes);
    expect(plan.findings.find((f) => f.code === 'route-controller')?.message).toMatch(
      /^route moves from kube-controller-manager to the CCM/,
    );
    const values = parse(plan.artifacts.find((a) => a.path === 'ccm/values.yaml')!.content) as {
      args: string[];
    };
    expect(values.args).toEqual(
      expect.arrayContaining([
        '--allocate-node-cidrs=true',
        '--cluster-cidr=10.99.0.0/16',
        '--configure-cloud-routes=true',
      ]),
    );
    expect(values.args).not.toContain('--configure-cloud-routes=false');
    expect(codeOf(() => planOf(routes, { targetVersion: 'v1.27.16-rancher1-1' }))).toBe('no error');
  });

  it('refuses --with-nodeipam: no aws CCM release implements Node IPAM', () => {
    expect(codeOf(() => planOf(CLUSTER_YML, { withNodeIpam: true }))).toBe('UP-PLAN-NODEIPAM-CCM');
  });

  it('states RKE1 end of life and the RKE version external-aws needs, with or without an upgrade', () => {
    for (const options of [{}, { targetVersion: 'v1.27.16-rancher1-1' }]) {
      const codes = planOf(CLUSTER_YML, options).plan.findings.map((f) => f.code);
      expect(codes).toEqual(expect.arrayContaining(['rke-end-of-life', 'rke-external-aws-version']));
    }
  });
});

describe('RKE keeps the in-tree provider while awsCloudProvider is set', () => {
  it('reads external-aws with an awsCloudProvider block as aws (rke InitCloudProvider), and the switch removes it', () => {
    const both = CLUSTER_YML.replace(
      'name: aws',
      'name: external-aws\n  awsCloudProvider: {global: {zone: a}}',
    );
    const { def, plan } = planOf(both);
    expect(rkeEffectiveSettings(def.document).kubeControllerManager).toBe('aws');
    expect(plan.outcome.type).toBe('migrate');
    const final = replayObject(rkePlanner, plan, def.document) as { cloud_provider: Record<string, unknown> };
    expect(final.cloud_provider).not.toHaveProperty('awsCloudProvider');
    expect(rkeExternalProblems(final)).toEqual([]);
    expect(plan.findings.map((f) => f.code)).toContain('aws-cloud-provider-removed');
  });
});

describe('Rancher-managed RKE: the clusters.management.cattle.io object, edited in place', () => {
  const V3 = `apiVersion: management.cattle.io/v3
kind: Cluster
metadata:
  name: c-7x2kq
  resourceVersion: "4242"
spec:
  displayName: analytics
  fleetWorkspaceName: fleet-default
  rancherKubernetesEngineConfig:
    kubernetesVersion: v1.26.15-rancher1-1
    ignoreDockerVersion: true
    cloudProvider:
      name: aws
      awsCloudProvider:
        global:
          kubernetes-cluster-id: analytics
    services:
      kubeController:
        clusterCidr: 10.42.0.0/16
        extraArgs:
          terminated-pod-gc-threshold: "500"
      kubeApi:
        serviceNodePortRange: 30000-32767
    nodes:
      - address: 10.0.0.1
        hostnameOverride: ip-10-0-0-1.ec2.internal
        role: [controlplane, etcd, worker]
`;

  it('plans edits of the v3 Cluster (no manual save), keeping every key it does not touch', () => {
    const { def, plan } = planOf(V3);
    expect(def.form).toBe('management');
    expect(def.name).toBe('analytics');
    const edits = plan.steps.flatMap((s) => s.changes).filter((c) => c.type === 'edit-cluster-definition');
    expect(edits.length).toBeGreaterThan(0);
    for (const e of edits)
      expect(e.target).toEqual({
        api: 'management',
        apiVersion: 'management.cattle.io/v3',
        kind: 'Cluster',
        name: 'c-7x2kq',
      });
    expect(
      plan.steps
        .flatMap((s) => s.changes)
        .some((c) => c.type === 'manual' && /Edit YAML/.test(c.description)),
    ).toBe(false);
    const final = replayObject(rkePlanner, plan, def.live) as {
      spec: {
        displayName: string;
        rancherKubernetesEngineConfig: {
          cloudProvider: unknown;
          ignoreDockerVersion: boolean;
          services: { kubeController: unknown; kubeApi: unknown };
          nodes: { hostnameOverride: string }[];
        };
      };
    };
    const rke = final.spec.rancherKubernetesEngineConfig;
    expect(rke.cloudProvider).toEqual({ name: 'external-aws', useInstanceMetadataHostname: false });
    expect(rke.services.kubeController).toEqual({
      clusterCidr: '10.42.0.0/16',
      extraArgs: { 'terminated-pod-gc-threshold': '500' },
    });
    expect(rke.services.kubeApi).toEqual({ serviceNodePortRange: '30000-32767' });
    expect(rke.ignoreDockerVersion).toBe(true);
    expect(rke.nodes[0]?.hostnameOverride).toBe('ip-10-0-0-1.ec2.internal');
    expect(final.spec.displayName).toBe('analytics');
    // The carried setting went into the CCM's ConfigMap.
    expect(plan.decisions?.cloudConfig).toBe('[Global]\nKubernetesClusterID = analytics\n');
  });
});

describe('the tooling that runs rke up must know external-aws (RKE v1.4.15 / v1.5.0, Rancher v2.7.11 / v2.8.0)', () => {
  it('compares RKE and Rancher versions per line', () => {
    const rke = (version: string) => knowsExternalAws({ kind: 'rke', version, source: 'x' });
    const rancher = (version: string) => knowsExternalAws({ kind: 'rancher', version, source: 'x' });
    expect([rke('v1.4.14'), rke('v1.4.15'), rke('v1.3.24'), rke('v1.5.0'), rke('v1.8.1')]).toEqual([
      false,
      true,
      false,
      true,
      true,
    ]);
    expect([
      rancher('v2.7.10'),
      rancher('v2.7.11'),
      rancher('v2.6.14'),
      rancher('v2.8.0'),
      rancher('v2.11.3'),
    ]).toEqual([false, true, false, true, true]);
    expect(rancher('head')).toBeUndefined();
    expect(rkeVersionFromOutput('rke version v1.4.15\n')).toBe('v1.4.15');
  });

  it('refuses the plan for an rke binary without external-aws, and says what it checked otherwise', () => {
    expect(
      codeOf(() =>
        planOf(CLUSTER_YML, { rkeTooling: { kind: 'rke', version: 'v1.4.14', source: 'rke --version' } }),
      ),
    ).toBe('UP-PLAN-RKE-EXTERNAL-AWS');
    const { plan } = planOf(CLUSTER_YML, {
      rkeTooling: { kind: 'rke', version: 'v1.5.10', source: 'rke --version' },
    });
    expect(plan.findings.find((f) => f.code === 'rke-external-aws-version')).toMatchObject({
      severity: 'info',
      message: expect.stringMatching(/^RKE v1\.5\.10 \(rke --version\) knows cloud_provider external-aws/),
    });
  });
});
