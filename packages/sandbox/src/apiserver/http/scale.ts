import { isJsonObject, thaw, type JsonObject, type KubeObject } from '../kube-object.js';
import type { PatchType } from '../patch/apply-patch.js';
import { applyJsonPatch } from '../patch/json-patch.js';
import { mergePatch } from '../patch/merge-patch.js';
import { strategicMergePatch } from '../patch/strategic-merge-patch.js';
import { conflict, invalid } from '../status/api-status-error.js';
import { formatLabelSelector } from '../tables/cells.js';
import type { ApiRequest, HandlerContext } from './resource-handlers.js';
import { sendJson } from './respond.js';

function scaleOf(obj: KubeObject): JsonObject {
  const spec = isJsonObject(obj.spec) ? obj.spec : {};
  const status = isJsonObject(obj.status) ? obj.status : {};
  const m = obj.metadata ?? {};
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      creationTimestamp: m.creationTimestamp,
    },
    spec: { replicas: typeof spec.replicas === 'number' ? spec.replicas : 0 },
    status: {
      replicas: typeof status.replicas === 'number' ? status.replicas : 0,
      selector: formatLabelSelector(spec.selector).replace('<none>', ''),
    },
  };
}

/** The `scale` subresource (autoscaling/v1 Scale) of deployments: GET, PUT and PATCH of `spec.replicas`. */
export function handleScale(ctx: HandlerContext, a: ApiRequest, input: unknown, patchType?: PatchType): void {
  const { rt, info } = a;
  const obj = ctx.store.mustGet(rt, info.namespace, info.name);
  const current = scaleOf(obj);
  if (input === undefined) {
    sendJson(a.res, 200, JSON.stringify(current));
    return;
  }
  let desired: unknown;
  switch (patchType) {
    case undefined:
      desired = input;
      break;
    case 'json':
      desired = applyJsonPatch(thaw(current), input);
      break;
    case 'strategic':
      desired = strategicMergePatch(current, input, undefined);
      break;
    default:
      desired = mergePatch(current, input);
  }
  const d = isJsonObject(desired) ? desired : {};
  const replicas = isJsonObject(d.spec) ? d.spec.replicas : undefined;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw invalid('Scale', 'autoscaling', info.name, [
      {
        field: 'spec.replicas',
        message: `Invalid value: ${JSON.stringify(replicas ?? null)}: must be greater than or equal to 0`,
      },
    ]);
  }
  const rv = isJsonObject(d.metadata) ? d.metadata.resourceVersion : undefined;
  if (typeof rv === 'string' && rv !== '' && rv !== obj.metadata?.resourceVersion)
    throw conflict(rt, info.name);
  const updated = ctx.store.patch(rt, info.namespace, info.name, 'merge', { spec: { replicas } });
  sendJson(a.res, 200, JSON.stringify(scaleOf(updated)));
}
