/**
 * A small migration plan whose steps all act on the API server (RBAC patch, cordon, CCM DaemonSet, uncordon),
 * and a stand-in DaemonSet controller, for end-to-end engine tests against the sandbox.
 */
import type { Change, Gate, MigrationPlan } from '../../../packages/uproot/src/core/model/plan-types.js';
import { plan, step } from '../../../packages/uproot/src/engine/testing/plan-fixtures.js';
import type { KubeApiServer, KubeObject } from '../../../packages/sandbox/src/apiserver/index.js';

const CP = 'node-role.kubernetes.io/control-plane=true';
const KCM_ROLE = 'system::leader-locking-kube-controller-manager';

const grant: Change = {
  type: 'patch-object',
  description: `let kube-controller-manager use the migration lease (${KCM_ROLE})`,
  target: {
    api: 'downstream',
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    namespace: 'kube-system',
    name: KCM_ROLE,
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

export const CCM_DAEMONSET: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: 'aws-cloud-controller-manager', namespace: 'kube-system' },
  spec: {
    selector: { matchLabels: { 'k8s-app': 'aws-cloud-controller-manager' } },
    updateStrategy: { type: 'RollingUpdate' },
    template: {
      metadata: { labels: { 'k8s-app': 'aws-cloud-controller-manager' } },
      spec: {
        nodeSelector: { 'node-role.kubernetes.io/control-plane': 'true' },
        containers: [
          {
            name: 'aws-cloud-controller-manager',
            image: 'registry.k8s.io/provider-aws/cloud-controller-manager:v1.26.12',
            args: ['--v=2', '--cloud-provider=aws', '--enable-leader-migration=true'],
          },
        ],
      },
    },
  },
};

const installCcm: Change = {
  type: 'apply-object',
  description: 'install the aws-cloud-controller-manager DaemonSet',
  api: 'downstream',
  object: CCM_DAEMONSET,
};
const rolledOut: Gate = {
  type: 'daemonset-rolled-out',
  namespace: 'kube-system',
  name: 'aws-cloud-controller-manager',
  timeoutSeconds: 600,
};

export function smallPlan(): MigrationPlan {
  return plan([
    step(
      'grant-migration-lease',
      [grant],
      [
        {
          type: 'rbac-allows',
          user: 'system:kube-controller-manager',
          verbs: ['get', 'update'],
          resource: 'leases',
          namespace: 'kube-system',
          resourceName: 'cloud-provider-extraction-migration',
          timeoutSeconds: 60,
        },
      ],
    ),
    step(
      'cordon-control-plane',
      [{ type: 'cordon-nodes', description: 'cordon the control plane', selector: CP }],
      [{ type: 'nodes-cordoned', selector: CP, timeoutSeconds: 60 }],
    ),
    step('install-ccm', [installCcm], [rolledOut]),
    step(
      'roll-control-plane',
      [{ type: 'uncordon-nodes', description: 'uncordon the control plane', selector: CP }],
      [
        { type: 'nodes-initialized', timeoutSeconds: 300 },
        { type: 'load-balancers-kept', timeoutSeconds: 300 },
        { type: 'no-ownership-overlap' },
      ],
    ),
  ]);
}

/** Stands in for the DaemonSet controller: reports every DaemonSet generation as rolled out on 3 nodes. */
export function autoRollOut(
  server: KubeApiServer,
  options: { enabled: () => boolean } = { enabled: () => true },
): () => void {
  return server.store.subscribe(
    (event) => {
      const ds = event.object;
      const status = (ds.status ?? {}) as { observedGeneration?: number };
      if (
        event.type === 'DELETED' ||
        !options.enabled() ||
        status.observedGeneration === ds.metadata?.generation
      )
        return;
      setImmediate(() => {
        const live = server.store.get('apps/v1/daemonsets', ds.metadata?.namespace, ds.metadata?.name ?? '');
        if (!live) return;
        server.store.update(
          'apps/v1/daemonsets',
          {
            ...structuredClone(live),
            status: {
              observedGeneration: live.metadata?.generation,
              desiredNumberScheduled: 3,
              currentNumberScheduled: 3,
              updatedNumberScheduled: 3,
              numberAvailable: 3,
              numberReady: 3,
            },
          },
          { subresource: 'status', namespace: live.metadata?.namespace, name: live.metadata?.name },
        );
      });
    },
    { resource: 'apps/v1/daemonsets' },
  );
}

export function seedLoadBalancer(server: KubeApiServer): void {
  server.store.create('v1/services', {
    metadata: { name: 'front', namespace: 'default' },
    spec: { type: 'LoadBalancer', ports: [{ port: 80 }], selector: { app: 'front' } },
  });
  const svc = server.store.get('v1/services', 'default', 'front')!;
  server.store.update(
    'v1/services',
    {
      ...structuredClone(svc),
      status: { loadBalancer: { ingress: [{ hostname: 'a1b2.elb.us-east-1.amazonaws.com' }] } },
    },
    { subresource: 'status', namespace: 'default', name: 'front' },
  );
}

/** What the migration changed, free of resourceVersions and uids, to compare two runs. */
export function endState(server: KubeApiServer): unknown {
  const nodes = server.store
    .list('v1/nodes')
    .items.map((n) => [n.metadata?.name, (n.spec as { unschedulable?: boolean }).unschedulable === true]);
  const role = server.store.get('rbac.authorization.k8s.io/v1/roles', 'kube-system', KCM_ROLE)?.rules;
  const ds = server.store.get('apps/v1/daemonsets', 'kube-system', 'aws-cloud-controller-manager');
  return { nodes, role, ds: ds ? { spec: ds.spec, generation: ds.metadata?.generation } : undefined };
}
