import type { Clock } from 'uproot';
import type { ClusterSnapshot, SnapshotNode } from 'uproot/core';
import { recordedMachines } from '../../scenarios/from-snapshot.js';
import { kubeTime, type KubeObject } from '../kube/kube-types.js';
import { R, type TwinKube } from '../kube/twin-kube.js';

/**
 * Once the twin of a `uproot snapshot` record has booted, its Nodes carry what the record says: the recorded
 * labels on top of what the twin's kubelets registered (a label someone added by hand, a pool label), the
 * recorded taints, and, as plain Node objects with no machine behind them, recorded Nodes that matched no
 * instance (a stray Node: nothing renews its lease, as nothing did on the original).
 */
export function replayRecordedNodes(
  kube: TwinKube,
  snapshot: ClusterSnapshot,
  clock: Pick<Clock, 'now'>,
): void {
  for (const { node, instance } of recordedMachines(snapshot)) {
    if (instance && kube.get(R.nodes, undefined, node.name)) {
      kube.mutate(R.nodes, undefined, node.name, (draft) => {
        draft.metadata = { ...draft.metadata, labels: { ...(draft.metadata?.labels ?? {}), ...node.labels } };
        draft.spec = {
          ...(draft.spec as Record<string, unknown>),
          taints: node.taints.map((t) => ({ ...t })),
        };
        return draft;
      });
    } else if (!instance) {
      kube.ensure(R.nodes, strayNode(node));
      kube.mutateStatus(R.nodes, undefined, node.name, (draft) => {
        draft.status = strayStatus(node, clock.now());
        return draft;
      });
    }
  }
}

function strayNode(node: SnapshotNode): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: node.name, labels: { ...node.labels }, annotations: { ...node.annotations } },
    spec: {
      ...(node.providerID ? { providerID: node.providerID } : {}),
      ...(node.taints.length > 0 ? { taints: node.taints.map((t) => ({ ...t })) } : {}),
      ...(node.unschedulable ? { unschedulable: true } : {}),
    },
  };
}

function strayStatus(node: SnapshotNode, now: number): Record<string, unknown> {
  const at = kubeTime(now);
  return {
    addresses: node.addresses.map((a) => ({ ...a })),
    conditions: node.conditions.map((c) => ({
      type: c.type,
      status: c.status,
      lastHeartbeatTime: at,
      lastTransitionTime: at,
    })),
    nodeInfo: { kubeletVersion: node.kubeletVersion },
  };
}
