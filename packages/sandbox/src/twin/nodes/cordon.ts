import { isRecord } from '../kube/kube-types.js';
import { R, type TwinKube } from '../kube/twin-kube.js';

/** `kubectl cordon` / `uncordon` as the distributions' rollouts do them: `spec.unschedulable`. */
export function cordon(kube: TwinKube, nodeName: string): void {
  setUnschedulable(kube, nodeName, true);
}

export function uncordon(kube: TwinKube, nodeName: string): void {
  setUnschedulable(kube, nodeName, false);
}

function setUnschedulable(kube: TwinKube, nodeName: string, value: boolean): void {
  kube.mutate(R.nodes, undefined, nodeName, (draft) => {
    const spec = isRecord(draft.spec) ? draft.spec : {};
    if ((spec.unschedulable === true) === value) return undefined;
    if (value) spec.unschedulable = true;
    else delete spec.unschedulable;
    draft.spec = spec;
    return draft;
  });
}
