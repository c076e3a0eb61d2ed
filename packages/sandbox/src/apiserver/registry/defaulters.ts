import { isJsonObject, setOwn, type JsonObject } from '../kube-object.js';
import type { Defaulter } from './resource-type.js';

/** Server-side defaults for the built-in kinds, approximating the upstream strategies and admission. */

function child(parent: JsonObject, key: string): JsonObject {
  const existing = parent[key];
  if (isJsonObject(existing)) return existing;
  const created: JsonObject = {};
  parent[key] = created;
  return created;
}

function setDefault(target: JsonObject, key: string, value: unknown): void {
  if (target[key] === undefined || target[key] === null) target[key] = value;
}

export const defaultNamespace: Defaulter = (ns) => {
  const meta = child(ns, 'metadata');
  const labels = child(meta, 'labels');
  if (typeof meta.name === 'string') labels['kubernetes.io/metadata.name'] = meta.name;
  setDefault(child(ns, 'spec'), 'finalizers', ['kubernetes']);
  setDefault(child(ns, 'status'), 'phase', 'Active');
};

export const defaultPod: Defaulter = (pod) => {
  const spec = child(pod, 'spec');
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'schedulerName', 'default-scheduler');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'serviceAccountName', 'default');
  setDefault(child(pod, 'status'), 'phase', 'Pending');
};

export const defaultService: Defaulter = (svc, ctx, old) => {
  const spec = child(svc, 'spec');
  const oldSpec = isJsonObject(old?.spec) ? old.spec : undefined;
  setDefault(spec, 'type', 'ClusterIP');
  setDefault(spec, 'sessionAffinity', 'None');
  if (spec.type !== 'ExternalName') {
    if (!spec.clusterIP) spec.clusterIP = oldSpec?.clusterIP ?? ctx.allocateClusterIp();
    setDefault(spec, 'clusterIPs', [spec.clusterIP]);
    setDefault(spec, 'ipFamilies', ['IPv4']);
    setDefault(spec, 'ipFamilyPolicy', 'SingleStack');
    setDefault(spec, 'internalTrafficPolicy', 'Cluster');
  }
  const oldPorts = Array.isArray(oldSpec?.ports) ? oldSpec.ports.filter(isJsonObject) : [];
  if (Array.isArray(spec.ports)) {
    for (const port of spec.ports.filter(isJsonObject)) {
      setDefault(port, 'protocol', 'TCP');
      setDefault(port, 'targetPort', port.port);
      if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') {
        const previous = oldPorts.find((p) => p.port === port.port && p.protocol === port.protocol);
        setDefault(port, 'nodePort', previous?.nodePort ?? ctx.allocateNodePort());
      }
    }
  }
  setDefault(child(svc, 'status'), 'loadBalancer', {});
};

export const defaultDaemonSet: Defaulter = (ds) => {
  const spec = child(ds, 'spec');
  setDefault(spec, 'updateStrategy', {
    type: 'RollingUpdate',
    rollingUpdate: { maxUnavailable: 1, maxSurge: 0 },
  });
  setDefault(spec, 'revisionHistoryLimit', 10);
  const status = child(ds, 'status');
  for (const key of [
    'currentNumberScheduled',
    'numberMisscheduled',
    'desiredNumberScheduled',
    'numberReady',
  ]) {
    setDefault(status, key, 0);
  }
};

export const defaultDeployment: Defaulter = (d) => {
  const spec = child(d, 'spec');
  setDefault(spec, 'replicas', 1);
  setDefault(spec, 'strategy', {
    type: 'RollingUpdate',
    rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' },
  });
  setDefault(spec, 'revisionHistoryLimit', 10);
  setDefault(spec, 'progressDeadlineSeconds', 600);
};

/** `stringData` is write-only: the API server folds it into base64 `data`. */
export const defaultSecret: Defaulter = (secret) => {
  setDefault(secret, 'type', 'Opaque');
  if (isJsonObject(secret.stringData)) {
    const data = child(secret, 'data');
    for (const [k, v] of Object.entries(secret.stringData))
      setOwn(data, k, Buffer.from(String(v)).toString('base64'));
    delete secret.stringData;
  }
};

export const defaultPersistentVolume: Defaulter = (pv) => {
  setDefault(child(pv, 'spec'), 'persistentVolumeReclaimPolicy', 'Retain');
  setDefault(child(pv, 'status'), 'phase', 'Available');
};

export const defaultPersistentVolumeClaim: Defaulter = (pvc) => {
  setDefault(child(pvc, 'spec'), 'volumeMode', 'Filesystem');
  setDefault(child(pvc, 'status'), 'phase', 'Pending');
};

export const defaultStorageClass: Defaulter = (sc) => {
  setDefault(sc, 'reclaimPolicy', 'Delete');
  setDefault(sc, 'volumeBindingMode', 'Immediate');
};

/**
 * PodDisruptionBudget: the status's counters are plain int32s upstream (k8s.io/api policy/v1 types.go, no
 * omitempty), so a new budget reads 0 everywhere until the disruption controller writes it.
 */
export const defaultPodDisruptionBudget: Defaulter = (pdb) => {
  const status = child(pdb, 'status');
  for (const key of ['currentHealthy', 'desiredHealthy', 'disruptionsAllowed', 'expectedPods'])
    setDefault(status, key, 0);
};
