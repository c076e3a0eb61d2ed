/**
 * What strategic merge patch needs to know about a kind: which lists merge by a key instead of being
 * replaced, which primitive lists merge as sets, and where `$retainKeys` applies. Taken from the Go struct
 * tags (`patchStrategy`, `patchMergeKey`) of the upstream API types.
 */
export interface SmpField {
  /** A list of objects merged element by element using this key. */
  readonly mergeKey?: string;
  /** A list of scalars merged as a set (e.g. `metadata.finalizers`). */
  readonly primitiveMerge?: boolean;
  /** The map (or each list element) honours `$retainKeys`. */
  readonly retainKeys?: boolean;
  /** Fields of the nested map, or of each element of a merged list. */
  readonly children?: SmpSchema;
}

export type SmpSchema = { readonly [field: string]: SmpField };

const conditions: SmpField = { mergeKey: 'type' };

export const objectMetaSchema: SmpSchema = {
  finalizers: { primitiveMerge: true },
  ownerReferences: { mergeKey: 'uid' },
};

const containerSchema: SmpSchema = {
  ports: { mergeKey: 'containerPort' },
  env: { mergeKey: 'name' },
  volumeMounts: { mergeKey: 'mountPath' },
  volumeDevices: { mergeKey: 'devicePath' },
  resizePolicy: { mergeKey: 'resourceName' },
};

export const podSpecSchema: SmpSchema = {
  containers: { mergeKey: 'name', children: containerSchema },
  initContainers: { mergeKey: 'name', children: containerSchema },
  ephemeralContainers: { mergeKey: 'name', children: containerSchema },
  volumes: { mergeKey: 'name', retainKeys: true },
  imagePullSecrets: { mergeKey: 'name' },
  hostAliases: { mergeKey: 'ip' },
  resourceClaims: { mergeKey: 'name', retainKeys: true },
  schedulingGates: { mergeKey: 'name' },
};

const podTemplateSchema: SmpSchema = {
  metadata: { children: objectMetaSchema },
  spec: { children: podSpecSchema },
};

function withMeta(rest: SmpSchema): SmpSchema {
  return { metadata: { children: objectMetaSchema }, ...rest };
}

export const podSchema = withMeta({
  spec: { children: podSpecSchema },
  status: { children: { conditions, podIPs: { mergeKey: 'ip' }, hostIPs: { mergeKey: 'ip' } } },
});

export const nodeSchema = withMeta({
  spec: { children: { podCIDRs: { primitiveMerge: true } } },
  status: { children: { conditions, addresses: { mergeKey: 'type' } } },
});

export const serviceSchema = withMeta({
  spec: { children: { ports: { mergeKey: 'port' } } },
  status: { children: { conditions } },
});

export const deploymentSchema = withMeta({
  spec: { children: { template: { children: podTemplateSchema }, strategy: { retainKeys: true } } },
  status: { children: { conditions } },
});

export const daemonSetSchema = withMeta({
  spec: { children: { template: { children: podTemplateSchema } } },
  status: { children: { conditions } },
});

export const namespaceSchema = withMeta({ status: { children: { conditions } } });

export const persistentVolumeClaimSchema = withMeta({ status: { children: { conditions } } });

/** Kinds without list merge keys still merge `metadata.finalizers` and `ownerReferences`. */
export const genericSchema = withMeta({});
