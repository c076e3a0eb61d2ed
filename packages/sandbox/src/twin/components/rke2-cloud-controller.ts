import type { Clock } from 'uproot';
import { sameRepository, type KubernetesVersion } from 'uproot/core';
import {
  LABEL_INSTANCE_TYPE,
  LABEL_INSTANCE_TYPE_BETA,
  UNINITIALIZED_TAINT,
} from '../../cloud-controllers/node-helpers.js';
import { isRecord, metaOf } from '../kube/kube-types.js';
import { R, type TwinKube } from '../kube/twin-kube.js';
import type { ManagerProcess } from '../managers/manager-launcher.js';
import { runUntilStopped } from '../managers/plain-process.js';
import { WorkQueue } from '../runtime/work-queue.js';

/**
 * RKE2's built-in cloud controller (the `cloud-controller-manager` static pod, image
 * rancher/rke2-cloud-provider): k3s's cloud provider under the name "rke2" (k3s-io/k3s
 * pkg/cloudprovider), run by the upstream cloud-node controller. For every node still carrying the
 * uninitialized taint it sets providerID `rke2://<node>` (only when empty), instance type `rke2`, the
 * addresses from the `rke2.io/internal-ip`/`external-ip`/`hostname` annotations (no zone or region), and
 * removes the taint, in one update that first re-reads the node (whoever removes the taint first wins, as in
 * cloud-provider's cloud_node_controller syncNode). Next to the AWS CCM it therefore races it for new nodes.
 */

export const RKE2_CLOUD_PROVIDER_IMAGE = 'index.docker.io/rancher/rke2-cloud-provider';
export const RKE2_PROVIDER_ID_SCHEME = 'rke2://';

/** Any tag of it, under any of the names Docker Hub answers to (`rancher/…`, `docker.io/rancher/…`). */
export function isRke2CloudProviderImage(image: string): boolean {
  return sameRepository(image, RKE2_CLOUD_PROVIDER_IMAGE);
}

/** The image RKE2 of a given version runs for its built-in cloud controller (scripts/version.sh CCM_VERSION). */
export function rke2CloudProviderImage(version: KubernetesVersion): string {
  return `${RKE2_CLOUD_PROVIDER_IMAGE}:v${version.major}.${version.minor}.${version.patch}-build20260820`;
}

function annotation(node: Record<string, unknown>, key: string): string {
  return metaOf(node as never).annotations?.[key] ?? '';
}

/** The process of one server's built-in cloud controller. */
export function startRke2CloudController(options: {
  readonly identity: string;
  readonly kube: TwinKube;
  readonly clock: Clock;
  readonly log: (line: string) => void;
}): ManagerProcess {
  const { kube, clock, log } = options;
  let running = true;
  const queue = new WorkQueue<string>(
    clock,
    (name) => initialize(name),
    (name, error) => log(`failed to initialize node ${name}: ${String(error)}`),
  );
  const unsubscribe = kube.watch(R.nodes, (event) => {
    if (event.type === 'DELETED') return;
    const spec = isRecord(event.object.spec) ? event.object.spec : {};
    const taints = Array.isArray(spec.taints) ? (spec.taints as { key?: string }[]) : [];
    if (taints.some((t) => t.key === UNINITIALIZED_TAINT)) queue.add(metaOf(event.object).name ?? '');
  });
  for (const node of kube.list(R.nodes)) queue.add(metaOf(node).name ?? '');

  function initialize(name: string): void {
    if (!running) return;
    let initialized = false;
    kube.mutate(R.nodes, undefined, name, (draft) => {
      const spec = isRecord(draft.spec) ? draft.spec : {};
      const taints = Array.isArray(spec.taints) ? (spec.taints as { key?: string }[]) : [];
      if (!taints.some((t) => t.key === UNINITIALIZED_TAINT)) return undefined;
      const internal = annotation(draft, 'rke2.io/internal-ip');
      if (!internal) return undefined; // "address annotations not yet set": retried on the next change
      const meta = metaOf(draft);
      meta.labels = {
        ...(meta.labels ?? {}),
        [LABEL_INSTANCE_TYPE]: 'rke2',
        [LABEL_INSTANCE_TYPE_BETA]: 'rke2',
      };
      if (!spec.providerID) spec.providerID = `${RKE2_PROVIDER_ID_SCHEME}${name}`;
      const rest = taints.filter((t) => t.key !== UNINITIALIZED_TAINT);
      if (rest.length > 0) spec.taints = rest;
      else delete spec.taints;
      draft.spec = spec;
      initialized = true;
      return draft;
    });
    const node = initialized ? kube.get(R.nodes, undefined, name) : undefined;
    if (!node) return;
    const addresses = [
      ...annotation(node, 'rke2.io/internal-ip')
        .split(',')
        .filter(Boolean)
        .map((address) => ({ type: 'InternalIP', address })),
      ...annotation(node, 'rke2.io/external-ip')
        .split(',')
        .filter(Boolean)
        .map((address) => ({ type: 'ExternalIP', address })),
      ...(annotation(node, 'rke2.io/hostname')
        ? [{ type: 'Hostname', address: annotation(node, 'rke2.io/hostname') }]
        : []),
    ];
    kube.mutateStatus(R.nodes, undefined, name, (draft) => {
      draft.status = { ...(isRecord(draft.status) ? draft.status : {}), addresses };
      return draft;
    });
    log(`Successfully initialized node ${name} with cloud provider rke2`);
  }

  return runUntilStopped(options.identity, () => {
    running = false;
    unsubscribe();
    queue.close();
  });
}
