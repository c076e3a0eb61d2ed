import type { UserInfo } from '../auth/identity.js';
import { isJsonObject, jsonEqual, type KubeObject } from '../kube-object.js';
import { forbidden, type GroupResource } from '../status/api-status-error.js';

/**
 * The NodeRestriction admission plugin (kubernetes/kubernetes plugin/pkg/admission/noderestriction/admission.go,
 * read at 01467da7): a kubelet (user `system:node:<name>` in group `system:nodes`) may write only its own Node
 * (not its taints, nor labels outside the kubelet set), its own Lease in kube-node-lease, mirror pods bound to
 * itself, the status of pods bound to itself, and tokens bound to pods on itself. Errors are the plugin's own
 * texts through admission.NewForbidden (`<resource> "<name>" is forbidden: <why>`).
 */

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE';

/** What an admission plugin sees of a write (admission.Attributes). */
export interface AdmissionAttributes {
  readonly user: UserInfo;
  readonly operation: AdmissionOperation;
  readonly resource: GroupResource;
  readonly subresource: string;
  readonly namespace: string;
  /** The name in the URL ('' on create). */
  readonly name: string;
  /** The object after the change (create, update). */
  readonly object?: KubeObject;
  /** The stored object (update, delete). */
  readonly oldObject?: KubeObject;
}

/** Stored objects the plugin looks up (its informers' listers). */
export interface NodeRestrictionLookup {
  pod(namespace: string, name: string): KubeObject | undefined;
}

const NODE_USER_PREFIX = 'system:node:';

/** pkg/auth/nodeidentifier: the node name, or undefined when the user is not a node. */
export function nodeIdentity(user: UserInfo): string | undefined {
  if (!user.name.startsWith(NODE_USER_PREFIX) || !user.groups.includes('system:nodes')) return undefined;
  return user.name.slice(NODE_USER_PREFIX.length);
}

/** extractResourceName: the URL's name, else the object's name or generateName, else "Unknown". */
function reject(a: AdmissionAttributes, why: string): never {
  const meta = a.object?.metadata;
  const name = a.name || meta?.name || meta?.generateName || 'Unknown';
  throw forbidden(a.resource, name, why);
}

export function admitNodeRestriction(a: AdmissionAttributes, lookup: NodeRestrictionLookup): void {
  const nodeName = nodeIdentity(a.user);
  if (nodeName === undefined) return;
  if (nodeName === '') reject(a, `could not determine node from user "${a.user.name}"`);
  const { group, resource } = a.resource;
  if (group === '' && resource === 'nodes') return admitNode(nodeName, a);
  if (group === 'coordination.k8s.io' && resource === 'leases') return admitLease(nodeName, a);
  if (group === '' && resource === 'pods') return admitPod(nodeName, a, lookup);
  if (group === '' && resource === 'serviceaccounts') return admitServiceAccount(nodeName, a, lookup);
}

function admitNode(nodeName: string, a: AdmissionAttributes): void {
  const requested = a.name || a.object?.metadata?.name || '';
  if (requested !== nodeName) reject(a, `node "${nodeName}" is not allowed to modify node "${requested}"`);
  const spec = (o: KubeObject | undefined) => (isJsonObject(o?.spec) ? o.spec : {});
  if (a.operation === 'CREATE') {
    if (spec(a.object).configSource != null) {
      reject(a, `node "${nodeName}" is not allowed to create pods with a non-nil configSource`);
    }
    const bad = forbiddenLabels(modifiedLabels(a.object?.metadata?.labels, undefined));
    if (bad.length > 0)
      reject(a, `node "${nodeName}" is not allowed to set the following labels: ${bad.join(', ')}`);
  }
  if (a.operation === 'UPDATE') {
    const source = spec(a.object).configSource;
    if (source != null && !jsonEqual(source, spec(a.oldObject).configSource)) {
      reject(a, `node "${nodeName}" is not allowed to update configSource to a new non-nil configSource`);
    }
    if (!jsonEqual(emptyAsUndefined(spec(a.object).taints), emptyAsUndefined(spec(a.oldObject).taints))) {
      reject(a, `node "${nodeName}" is not allowed to modify taints`);
    }
    const bad = forbiddenLabels(modifiedLabels(a.object?.metadata?.labels, a.oldObject?.metadata?.labels));
    if (bad.length > 0) reject(a, `is not allowed to modify labels: ${bad.join(', ')}`);
  }
}

/** apiequality.Semantic treats a nil and an empty slice alike. */
function emptyAsUndefined(v: unknown): unknown {
  return Array.isArray(v) && v.length === 0 ? undefined : v;
}

function admitLease(nodeName: string, a: AdmissionAttributes): void {
  if (a.namespace !== 'kube-node-lease')
    reject(a, 'can only access leases in the "kube-node-lease" system namespace');
  const name = a.operation === 'CREATE' ? (a.object?.metadata?.name ?? '') : a.name;
  if (name !== nodeName) reject(a, 'can only access node lease with the same name as the requesting node');
}

function podNodeName(pod: KubeObject | undefined): string {
  const spec = isJsonObject(pod?.spec) ? pod.spec : {};
  return typeof spec.nodeName === 'string' ? spec.nodeName : '';
}

function admitPod(nodeName: string, a: AdmissionAttributes, lookup: NodeRestrictionLookup): void {
  if (a.subresource === 'status') {
    if (a.operation !== 'UPDATE') reject(a, `unexpected operation "${a.operation}"`);
    if (podNodeName(a.oldObject) !== nodeName) {
      reject(a, `node "${nodeName}" can only update pod status for pods with spec.nodeName set to itself`);
    }
    if (!jsonEqual(a.object?.metadata?.labels ?? {}, a.oldObject?.metadata?.labels ?? {})) {
      reject(a, `node "${nodeName}" cannot update labels through pod status`);
    }
    return;
  }
  if (a.subresource !== '') {
    reject(a, `unexpected pod subresource "${a.subresource}", only 'status' and 'eviction' are allowed`);
  }
  if (a.operation === 'DELETE') {
    if (podNodeName(a.oldObject ?? lookup.pod(a.namespace, a.name)) !== nodeName) {
      reject(a, `node "${nodeName}" can only delete pods with spec.nodeName set to itself`);
    }
    return;
  }
  if (a.operation !== 'CREATE') {
    reject(
      a,
      `unexpected operation "${a.operation}", node "${nodeName}" can only create and delete mirror pods`,
    );
  }
  const MIRROR = 'kubernetes.io/config.mirror';
  if (a.object?.metadata?.annotations?.[MIRROR] === undefined) {
    reject(a, `pod does not have "${MIRROR}" annotation, node "${nodeName}" can only create mirror pods`);
  }
  if (podNodeName(a.object) !== nodeName) {
    reject(a, `node "${nodeName}" can only create pods with spec.nodeName set to itself`);
  }
  // The owner-reference, service-account, secret, configmap and PVC checks of admitPodCreate are not modelled.
}

function admitServiceAccount(nodeName: string, a: AdmissionAttributes, lookup: NodeRestrictionLookup): void {
  if (a.operation !== 'CREATE' || a.subresource !== 'token') return;
  const spec = isJsonObject(a.object?.spec) ? a.object.spec : {};
  const ref = isJsonObject(spec.boundObjectRef) ? spec.boundObjectRef : undefined;
  if (!ref || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || !ref.name) {
    reject(a, 'node requested token not bound to a pod');
  }
  if (!ref.uid) reject(a, 'node requested token with a pod binding without a uid');
  const pod = lookup.pod(a.namespace, String(ref.name));
  if (!pod) return; // the plugin returns the lister's NotFound; the token request then fails on the binding
  if (pod.metadata?.uid !== ref.uid) {
    reject(
      a,
      `the UID in the bound object reference (${String(ref.uid)}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  if (podNodeName(pod) !== nodeName)
    reject(a, 'node requested token bound to a pod scheduled on a different node');
}

/** getModifiedLabels: keys added, removed or changed. */
function modifiedLabels(
  next: Readonly<Record<string, string>> | undefined,
  old: Readonly<Record<string, string>> | undefined,
): Set<string> {
  const out = new Set<string>();
  const a = next ?? {};
  const b = old ?? {};
  for (const k of Object.keys(a)) if (a[k] !== b[k]) out.add(k);
  for (const k of Object.keys(b)) if (a[k] !== b[k]) out.add(k);
  return out;
}

/** k8s.io/kubelet pkg/apis/well_known_labels.go: the labels a kubelet may set on its Node. */
const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
]);
const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

const labelNamespace = (key: string): string => (key.includes('/') ? key.slice(0, key.indexOf('/')) : '');
const inNamespace = (ns: string, domain: string): boolean => ns === domain || ns.endsWith(`.${domain}`);

function isKubeletLabel(key: string): boolean {
  if (KUBELET_LABELS.has(key)) return true;
  return KUBELET_LABEL_NAMESPACES.some((d) => inNamespace(labelNamespace(key), d));
}

/** getForbiddenLabels, sorted as sets.String.List() is. */
function forbiddenLabels(modified: Set<string>): string[] {
  const out: string[] = [];
  for (const key of modified) {
    const ns = labelNamespace(key);
    const restricted = inNamespace(ns, 'node-restriction.kubernetes.io');
    const kubernetes = inNamespace(ns, 'kubernetes.io') || inNamespace(ns, 'k8s.io');
    if (restricted || (kubernetes && !isKubeletLabel(key))) out.push(key);
  }
  return out.sort();
}
