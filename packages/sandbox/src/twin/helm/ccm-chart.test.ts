import { describe, expect, it } from 'vitest';
import { mergeValues, renderCcmChart } from './ccm-chart.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function daemonSet(values: Record<string, unknown>): Obj {
  return renderCcmChart(values).objects.find((o) => o.kind === 'DaemonSet') as Obj;
}

describe('the aws-cloud-controller-manager chart', () => {
  it('renders the chart defaults (prior-art §3)', () => {
    const ds = daemonSet({});
    const pod = ds.spec.template.spec;
    expect(ds.metadata).toMatchObject({ name: 'aws-cloud-controller-manager', namespace: 'kube-system' });
    expect(pod.containers[0].image).toBe('registry.k8s.io/provider-aws/cloud-controller-manager:v1.35.0');
    expect(pod.containers[0].args).toEqual(['--v=2', '--cloud-provider=aws']);
    expect(pod.nodeSelector).toEqual({ 'node-role.kubernetes.io/control-plane': '' });
    expect(pod.tolerations).toHaveLength(3);
    expect(pod.hostNetwork).toBeUndefined();
    expect(pod.dnsPolicy).toBe('Default');
    expect(pod.priorityClassName).toBe('system-node-critical');
    expect(pod.serviceAccountName).toBe('cloud-controller-manager');
    expect(ds.spec.updateStrategy).toEqual({ type: 'RollingUpdate' });
  });

  it('renders the RBAC the chart installs', () => {
    const objects = renderCcmChart({}).objects;
    expect(objects.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual([
      'ServiceAccount/cloud-controller-manager',
      'ClusterRole/system:cloud-controller-manager',
      'ClusterRoleBinding/system:cloud-controller-manager',
      'RoleBinding/cloud-controller-manager:apiserver-authentication-reader',
      'DaemonSet/aws-cloud-controller-manager',
    ]);
    const binding = objects[3] as Obj;
    expect(binding.roleRef).toMatchObject({
      kind: 'Role',
      name: 'extension-apiserver-authentication-reader',
    });
  });

  it("takes the seeds' values: hostNetworking, args, clusterRoleRules and a pinned tag", () => {
    const rules = [{ apiGroups: [''], resources: ['serviceaccounts'], verbs: ['create', 'get'] }];
    const rendered = renderCcmChart({
      hostNetworking: true,
      args: ['--v=5', '--enable-leader-migration=true'],
      clusterRoleRules: rules,
      image: { tag: 'v1.26.11' },
    });
    const pod = (rendered.objects[4] as Obj).spec.template.spec;
    expect(pod.hostNetwork).toBe(true);
    expect(pod.containers[0].args).toEqual(['--v=5', '--enable-leader-migration=true']);
    expect(pod.containers[0].image).toBe('registry.k8s.io/provider-aws/cloud-controller-manager:v1.26.11');
    expect((rendered.objects[1] as Obj).rules).toEqual(rules);
  });

  it('merges maps as Helm does: an RKE nodeSelector keeps the default control-plane key (seed 004, RKE step 4)', () => {
    const pod = daemonSet({ nodeSelector: { 'node-role.kubernetes.io/controlplane': 'true' } }).spec.template
      .spec;
    expect(pod.nodeSelector).toEqual({
      'node-role.kubernetes.io/control-plane': '',
      'node-role.kubernetes.io/controlplane': 'true',
    });
    const rke2 = daemonSet({ nodeSelector: { 'node-role.kubernetes.io/control-plane': 'true' } }).spec
      .template.spec;
    expect(rke2.nodeSelector).toEqual({ 'node-role.kubernetes.io/control-plane': 'true' });
  });

  it('a null value deletes a default key, lists replace', () => {
    expect(mergeValues({ a: { b: 1, c: 2 }, l: [1, 2] }, { a: { b: null }, l: [3] })).toEqual({
      a: { c: 2 },
      l: [3],
    });
  });
});
