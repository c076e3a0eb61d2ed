import type { KubeObject } from '../kube-object.js';
import { age } from './human-duration.js';
import { arr, formatLabels, int, obj, str } from './cells.js';
import { AGE_COLUMN, column, NAME_COLUMN, type TablePrinter } from './table.js';

const created = (o: KubeObject): unknown => o.metadata?.creationTimestamp;

/** Roles from `node-role.kubernetes.io/<role>` and `kubernetes.io/role=<role>` labels. */
export function nodeRoles(labels: Readonly<Record<string, string>> | undefined): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/')) {
      const role = k.slice('node-role.kubernetes.io/'.length);
      if (role) roles.add(role);
    } else if (k === 'kubernetes.io/role' && v) {
      roles.add(v);
    }
  }
  return roles.size === 0 ? '<none>' : [...roles].sort().join(',');
}

export function nodeStatus(node: KubeObject): string {
  const status: string[] = [];
  const ready = arr(obj(node.status).conditions)
    .map(obj)
    .find((c) => c.type === 'Ready');
  if (ready) status.push(ready.status === 'True' ? 'Ready' : 'NotReady');
  if (status.length === 0) status.push('Unknown');
  if (obj(node.spec).unschedulable === true) status.push('SchedulingDisabled');
  return status.join(',');
}

function nodeAddress(node: KubeObject, type: string): string {
  const found = arr(obj(node.status).addresses)
    .map(obj)
    .find((a) => a.type === type);
  return str(found?.address, '<none>');
}

export const nodePrinter: TablePrinter = {
  columns: [
    NAME_COLUMN,
    column('Status', 'string', { description: 'The status of the node' }),
    column('Roles', 'string', { description: 'The roles of the node' }),
    AGE_COLUMN,
    column('Version', 'string', { description: 'Kubelet Version reported by the node.' }),
    column('Internal-IP', 'string', { priority: 1, description: 'List of addresses reachable to the node.' }),
    column('External-IP', 'string', { priority: 1, description: 'List of addresses reachable to the node.' }),
    column('OS-Image', 'string', {
      priority: 1,
      description: 'OS Image reported by the node from /etc/os-release.',
    }),
    column('Kernel-Version', 'string', { priority: 1, description: 'Kernel Version reported by the node.' }),
    column('Container-Runtime', 'string', {
      priority: 1,
      description: 'Container Runtime Version reported by the node.',
    }),
  ],
  row(node, now) {
    const info = obj(obj(node.status).nodeInfo);
    return [
      node.metadata?.name ?? '',
      nodeStatus(node),
      nodeRoles(node.metadata?.labels),
      age(created(node), now),
      str(info.kubeletVersion),
      nodeAddress(node, 'InternalIP'),
      nodeAddress(node, 'ExternalIP'),
      str(info.osImage, '<unknown>'),
      str(info.kernelVersion, '<unknown>'),
      str(info.containerRuntimeVersion, '<unknown>'),
    ];
  },
};

function podStatusReason(pod: KubeObject): string {
  const status = obj(pod.status);
  let reason = str(status.reason, str(status.phase, 'Unknown'));
  for (const cs of arr(status.containerStatuses).map(obj)) {
    const state = obj(cs.state);
    const waiting = str(obj(state.waiting).reason);
    const terminated = obj(state.terminated);
    if (waiting) reason = waiting;
    else if (str(terminated.reason)) reason = str(terminated.reason);
    else if (Object.keys(terminated).length > 0) {
      reason = terminated.signal
        ? `Signal:${int(terminated.signal)}`
        : `ExitCode:${int(terminated.exitCode)}`;
    }
  }
  if (pod.metadata?.deletionTimestamp) reason = status.reason === 'NodeLost' ? 'Unknown' : 'Terminating';
  return reason;
}

export const podPrinter: TablePrinter = {
  columns: [
    NAME_COLUMN,
    column('Ready', 'string', {
      description: 'The aggregate readiness state of this pod for accepting traffic.',
    }),
    column('Status', 'string', { description: 'The aggregate status of the containers in this pod.' }),
    column('Restarts', 'string', {
      description:
        'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    }),
    AGE_COLUMN,
    column('IP', 'string', {
      priority: 1,
      description:
        'IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
    }),
    column('Node', 'string', {
      priority: 1,
      description: 'NodeName is a request to schedule this pod onto a specific node.',
    }),
    column('Nominated Node', 'string', {
      priority: 1,
      description: 'nominatedNodeName is set only when this pod preempts other pods on the node.',
    }),
    column('Readiness Gates', 'string', {
      priority: 1,
      description: 'If specified, all readiness gates will be evaluated for pod readiness.',
    }),
  ],
  row(pod, now) {
    const spec = obj(pod.spec);
    const status = obj(pod.status);
    const statuses = arr(status.containerStatuses).map(obj);
    const ready = statuses.filter((c) => c.ready === true).length;
    const restarts = statuses.reduce((n, c) => n + int(c.restartCount), 0);
    const gates = arr(spec.readinessGates).length;
    return [
      pod.metadata?.name ?? '',
      `${ready}/${arr(spec.containers).length}`,
      podStatusReason(pod),
      restarts,
      age(created(pod), now),
      str(status.podIP, '<none>'),
      str(spec.nodeName, '<none>'),
      str(status.nominatedNodeName, '<none>'),
      gates === 0 ? '<none>' : `0/${gates}`,
    ];
  },
};

export const namespacePrinter: TablePrinter = {
  columns: [
    NAME_COLUMN,
    column('Status', 'string', { description: 'The status of the namespace' }),
    AGE_COLUMN,
  ],
  row: (ns, now) => [ns.metadata?.name ?? '', str(obj(ns.status).phase), age(created(ns), now)],
};

function serviceExternalIp(svc: KubeObject): string {
  const spec = obj(svc.spec);
  const external = arr(spec.externalIPs).map(String);
  switch (str(spec.type, 'ClusterIP')) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length > 0 ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const ingress = arr(obj(obj(svc.status).loadBalancer).ingress)
        .map(obj)
        .map((i) => str(i.ip) || str(i.hostname))
        .filter(Boolean);
      const all = [...ingress, ...external];
      return all.length > 0 ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return str(spec.externalName);
    default:
      return '<unknown>';
  }
}

export const servicePrinter: TablePrinter = {
  columns: [
    NAME_COLUMN,
    column('Type', 'string', { description: 'type determines how the Service is exposed.' }),
    column('Cluster-IP', 'string', { description: 'clusterIP is the IP address of the service.' }),
    column('External-IP', 'string', {
      description:
        'List of IP addresses for which nodes in the cluster will also accept traffic for this service.',
    }),
    column('Port(s)', 'string', { description: 'The list of ports that are exposed by this service.' }),
    AGE_COLUMN,
    column('Selector', 'string', {
      priority: 1,
      description: 'Route service traffic to pods with label keys and values matching this selector.',
    }),
  ],
  row(svc, now) {
    const spec = obj(svc.spec);
    const ports = arr(spec.ports)
      .map(obj)
      .map((p) => `${int(p.port)}${p.nodePort ? `:${int(p.nodePort)}` : ''}/${str(p.protocol, 'TCP')}`);
    return [
      svc.metadata?.name ?? '',
      str(spec.type, 'ClusterIP'),
      str(spec.clusterIP, '<none>'),
      serviceExternalIp(svc),
      ports.length > 0 ? ports.join(',') : '<none>',
      age(created(svc), now),
      formatLabels(spec.selector),
    ];
  },
};

export const endpointsPrinter: TablePrinter = {
  columns: [
    NAME_COLUMN,
    column('Endpoints', 'string', { description: 'Endpoints of the service' }),
    AGE_COLUMN,
  ],
  row(ep, now) {
    const all: string[] = [];
    for (const subset of arr(ep.subsets).map(obj)) {
      const ports = arr(subset.ports).map(obj);
      for (const addr of arr(subset.addresses).map(obj)) {
        if (ports.length === 0) all.push(str(addr.ip));
        for (const p of ports) all.push(`${str(addr.ip)}:${int(p.port)}`);
      }
    }
    const shown = all.length > 3 ? `${all.slice(0, 3).join(',')} + ${all.length - 3} more...` : all.join(',');
    return [ep.metadata?.name ?? '', shown || '<none>', age(created(ep), now)];
  },
};

export const configMapPrinter: TablePrinter = {
  columns: [
    NAME_COLUMN,
    column('Data', 'integer', { description: 'Data contains the configuration data.' }),
    AGE_COLUMN,
  ],
  row: (cm, now) => [
    cm.metadata?.name ?? '',
    Object.keys(obj(cm.data)).length + Object.keys(obj(cm.binaryData)).length,
    age(created(cm), now),
  ],
};

export const secretPrinter: TablePrinter = {
  columns: [
    NAME_COLUMN,
    column('Type', 'string', { description: 'Used to facilitate programmatic handling of secret data.' }),
    column('Data', 'integer', { description: 'Data contains the secret data.' }),
    AGE_COLUMN,
  ],
  row: (s, now) => [
    s.metadata?.name ?? '',
    str(s.type, 'Opaque'),
    Object.keys(obj(s.data)).length,
    age(created(s), now),
  ],
};

export const serviceAccountPrinter: TablePrinter = {
  columns: [
    NAME_COLUMN,
    column('Secrets', 'string', {
      description:
        'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.',
    }),
    AGE_COLUMN,
  ],
  row: (sa, now) => [sa.metadata?.name ?? '', arr(sa.secrets).length, age(created(sa), now)],
};

export const eventPrinter: TablePrinter = {
  columns: [
    column('Last Seen', 'string', { description: 'The last time this event was seen' }),
    column('Type', 'string', { description: 'Type of this event (Normal, Warning)' }),
    column('Reason', 'string', {
      description:
        "Short, machine understandable string that gives the reason for the transition into the object's current status.",
    }),
    column('Object', 'string', { description: 'The object this Event is about.' }),
    column('Subobject', 'string', {
      priority: 1,
      description: 'The field of the object this event is about.',
    }),
    column('Source', 'string', { priority: 1, description: 'The component reporting this event.' }),
    column('Message', 'string', {
      description: 'A human-readable description of the status of this operation.',
    }),
    column('First Seen', 'string', { priority: 1, description: 'The first time this event was seen' }),
    column('Count', 'string', { priority: 1, description: 'The number of times this event has occurred.' }),
    column('Name', 'string', { priority: 1, format: 'name', description: 'The name of the event' }),
  ],
  row(ev, now) {
    const involved = obj(ev.involvedObject);
    const source = obj(ev.source);
    const last = ev.lastTimestamp ?? ev.eventTime ?? created(ev);
    const first = ev.firstTimestamp ?? ev.eventTime ?? created(ev);
    return [
      age(last, now),
      str(ev.type),
      str(ev.reason),
      `${str(involved.kind).toLowerCase()}/${str(involved.name)}`,
      str(involved.fieldPath),
      [str(source.component), str(source.host)].filter(Boolean).join(', ') || str(ev.reportingComponent),
      str(ev.message),
      age(first, now),
      int(ev.count) || 1,
      ev.metadata?.name ?? '',
    ];
  },
};

const ACCESS_MODES: Record<string, string> = {
  ReadWriteOnce: 'RWO',
  ReadOnlyMany: 'ROX',
  ReadWriteMany: 'RWX',
  ReadWriteOncePod: 'RWOP',
};

function accessModes(modes: unknown): string {
  return arr(modes)
    .map((m) => ACCESS_MODES[String(m)] ?? String(m))
    .join(',');
}

export const persistentVolumePrinter: TablePrinter = {
  columns: [
    NAME_COLUMN,
    column('Capacity'),
    column('Access Modes'),
    column('Reclaim Policy'),
    column('Status'),
    column('Claim'),
    column('StorageClass'),
    column('VolumeAttributesClass'),
    column('Reason'),
    AGE_COLUMN,
    column('VolumeMode', 'string', { priority: 1 }),
  ],
  row(pv, now) {
    const spec = obj(pv.spec);
    const claim = obj(spec.claimRef);
    return [
      pv.metadata?.name ?? '',
      str(obj(spec.capacity).storage),
      accessModes(spec.accessModes),
      str(spec.persistentVolumeReclaimPolicy),
      str(obj(pv.status).phase),
      claim.name ? `${str(claim.namespace)}/${str(claim.name)}` : '',
      str(spec.storageClassName),
      str(spec.volumeAttributesClassName, '<unset>'),
      str(obj(pv.status).reason),
      age(created(pv), now),
      str(spec.volumeMode, 'Filesystem'),
    ];
  },
};

export const persistentVolumeClaimPrinter: TablePrinter = {
  columns: [
    NAME_COLUMN,
    column('Status'),
    column('Volume'),
    column('Capacity'),
    column('Access Modes'),
    column('StorageClass'),
    column('VolumeAttributesClass'),
    AGE_COLUMN,
    column('VolumeMode', 'string', { priority: 1 }),
  ],
  row(pvc, now) {
    const spec = obj(pvc.spec);
    const status = obj(pvc.status);
    return [
      pvc.metadata?.name ?? '',
      str(status.phase),
      str(spec.volumeName),
      str(obj(status.capacity).storage),
      accessModes(status.accessModes),
      str(spec.storageClassName),
      str(spec.volumeAttributesClassName, '<unset>'),
      age(created(pvc), now),
      str(spec.volumeMode, 'Filesystem'),
    ];
  },
};
