import type { KubeObject } from '../kube-object.js';
import { arr, containersAndImages, formatLabels, formatLabelSelector, int, obj, str } from './cells.js';
import { age } from './human-duration.js';
import { AGE_COLUMN, column, NAME_COLUMN, type TablePrinter } from './table.js';

const created = (o: KubeObject): unknown => o.metadata?.creationTimestamp;

const CREATED_AT_COLUMN = column('Created At', 'date', {
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
});

/** The wide columns of a workload with a pod template (daemon sets, deployments), as kubectl prints them. */
const TEMPLATE_COLUMNS = [
  column('Containers', 'string', { priority: 1, description: 'Names of each container in the template.' }),
  column('Images', 'string', {
    priority: 1,
    description: 'Images referenced by each container in the template.',
  }),
];

/** The default for kinds without a printer of their own. */
export const defaultPrinter: TablePrinter = {
  columns: [NAME_COLUMN, AGE_COLUMN],
  row: (o, now) => [o.metadata?.name ?? '', age(created(o), now)],
};

/** Name and a `date` cell kubectl turns into an age (the upstream default table convertor). */
export const createdAtPrinter: TablePrinter = {
  columns: [NAME_COLUMN, CREATED_AT_COLUMN],
  row: (o) => [o.metadata?.name ?? '', created(o) ?? null],
};

export const leasePrinter: TablePrinter = {
  columns: [NAME_COLUMN, column('Holder', 'string', { description: 'The holder of the lease' }), AGE_COLUMN],
  row: (lease, now) => [
    lease.metadata?.name ?? '',
    str(obj(lease.spec).holderIdentity),
    age(created(lease), now),
  ],
};

export const daemonSetPrinter: TablePrinter = {
  columns: [
    NAME_COLUMN,
    column('Desired', 'integer', {
      description: 'The total number of nodes that should be running the daemon pod.',
    }),
    column('Current', 'integer', {
      description:
        'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.',
    }),
    column('Ready', 'integer', {
      description:
        'numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.',
    }),
    column('Up-to-date', 'integer', {
      description: 'The total number of nodes that are running updated daemon pod',
    }),
    column('Available', 'integer', {
      description:
        'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)',
    }),
    column('Node Selector', 'string', {
      description: 'NodeSelector is a selector which must be true for the pod to fit on a node.',
    }),
    AGE_COLUMN,
    ...TEMPLATE_COLUMNS,
    column('Selector', 'string', {
      priority: 1,
      description: 'A label query over pods that are managed by the daemon set.',
    }),
  ],
  row(ds, now) {
    const spec = obj(ds.spec);
    const status = obj(ds.status);
    const podSpec = obj(obj(spec.template).spec);
    const [containers, images] = containersAndImages(podSpec);
    return [
      ds.metadata?.name ?? '',
      int(status.desiredNumberScheduled),
      int(status.currentNumberScheduled),
      int(status.numberReady),
      int(status.updatedNumberScheduled),
      int(status.numberAvailable),
      formatLabels(podSpec.nodeSelector),
      age(created(ds), now),
      containers,
      images,
      formatLabelSelector(spec.selector),
    ];
  },
};

export const deploymentPrinter: TablePrinter = {
  columns: [
    NAME_COLUMN,
    column('Ready', 'string', { description: 'Number of the pod with ready state' }),
    column('Up-to-date', 'integer', {
      description:
        'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
    }),
    column('Available', 'integer', {
      description:
        'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
    }),
    AGE_COLUMN,
    ...TEMPLATE_COLUMNS,
    column('Selector', 'string', {
      priority: 1,
      description:
        'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.',
    }),
  ],
  row(d, now) {
    const spec = obj(d.spec);
    const status = obj(d.status);
    const [containers, images] = containersAndImages(obj(obj(spec.template).spec));
    const replicas = spec.replicas === undefined ? 1 : int(spec.replicas);
    return [
      d.metadata?.name ?? '',
      `${int(status.readyReplicas)}/${replicas}`,
      int(status.updatedReplicas),
      int(status.availableReplicas),
      age(created(d), now),
      containers,
      images,
      formatLabelSelector(spec.selector),
    ];
  },
};

function subjectNames(binding: KubeObject, kind: string): string {
  return arr(binding.subjects)
    .map(obj)
    .filter((s) => s.kind === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${str(s.namespace)}/${str(s.name)}` : str(s.name)))
    .join(', ');
}

export const bindingPrinter: TablePrinter = {
  columns: [
    NAME_COLUMN,
    column('Role', 'string', {
      description:
        'RoleRef references a Role in the current namespace or a ClusterRole in the global namespace.',
    }),
    AGE_COLUMN,
    column('Users', 'string', { priority: 1, description: 'Users in the binding' }),
    column('Groups', 'string', { priority: 1, description: 'Groups in the binding' }),
    column('ServiceAccounts', 'string', { priority: 1, description: 'ServiceAccounts in the binding' }),
  ],
  row(b, now) {
    const ref = obj(b.roleRef);
    return [
      b.metadata?.name ?? '',
      `${str(ref.kind)}/${str(ref.name)}`,
      age(created(b), now),
      subjectNames(b, 'User'),
      subjectNames(b, 'Group'),
      subjectNames(b, 'ServiceAccount'),
    ];
  },
};

export const storageClassPrinter: TablePrinter = {
  columns: [
    NAME_COLUMN,
    column('Provisioner', 'string', { description: 'Indicates the type of the provisioner.' }),
    column('ReclaimPolicy', 'string', {
      description:
        'Dynamically provisioned PersistentVolumes of this storage class are created with this reclaimPolicy.',
    }),
    column('VolumeBindingMode', 'string', {
      description: 'VolumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.',
    }),
    column('AllowVolumeExpansion', 'string', {
      description: 'AllowVolumeExpansion shows whether the storage class allow volume expand.',
    }),
    AGE_COLUMN,
  ],
  row(sc, now) {
    const annotations = sc.metadata?.annotations ?? {};
    const isDefault =
      annotations['storageclass.kubernetes.io/is-default-class'] === 'true' ||
      annotations['storageclass.beta.kubernetes.io/is-default-class'] === 'true';
    return [
      `${sc.metadata?.name ?? ''}${isDefault ? ' (default)' : ''}`,
      str(sc.provisioner),
      str(sc.reclaimPolicy, 'Delete'),
      str(sc.volumeBindingMode, 'Immediate'),
      sc.allowVolumeExpansion === true ? 'true' : 'false',
      age(created(sc), now),
    ];
  },
};

/** kubernetes pkg/printers/internalversion/printers.go printPodDisruptionBudget ("N/A" for an unset bound). */
export const podDisruptionBudgetPrinter: TablePrinter = {
  columns: [
    NAME_COLUMN,
    column('Min Available', 'string', { description: 'The minimum number of pods that must be available.' }),
    column('Max Unavailable', 'string', {
      description: 'The maximum number of pods that may be unavailable.',
    }),
    column('Allowed Disruptions', 'integer', {
      description: 'Calculated number of pods that may be disrupted at this time.',
    }),
    AGE_COLUMN,
  ],
  row(pdb, now) {
    const spec = obj(pdb.spec);
    const bound = (v: unknown): string =>
      typeof v === 'number' || typeof v === 'string' ? String(v) : 'N/A';
    return [
      pdb.metadata?.name ?? '',
      bound(spec.minAvailable),
      bound(spec.maxUnavailable),
      int(obj(pdb.status).disruptionsAllowed),
      age(created(pdb), now),
    ];
  },
};
