/** A node's taint and a pod's toleration (k8s.io/api core/v1 Taint, Toleration), as plain data. src/core/scheduling matches them. */
export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
}

export interface Toleration {
  readonly key?: string;
  readonly operator?: string;
  readonly value?: string;
  readonly effect?: string;
}
