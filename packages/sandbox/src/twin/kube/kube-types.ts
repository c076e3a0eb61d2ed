import { thaw } from '../../apiserver/kube-object.js';

/** Plain Kubernetes objects as the twin builds and reads them (JSON; the API server stores them frozen). */
export type KubeObject = Record<string, unknown> & {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
};

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  [key: string]: unknown;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export function metaOf(obj: KubeObject | undefined): ObjectMeta {
  return (obj?.metadata ?? {}) as ObjectMeta;
}

export function nameOf(obj: KubeObject): string {
  return metaOf(obj).name ?? '';
}

export function namespaceOf(obj: KubeObject): string {
  return metaOf(obj).namespace ?? '';
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A mutable deep copy (stored objects are frozen); the store's own, see thaw. */
export function clone<T>(value: T): T {
  return thaw(value);
}

export function kubeTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** metav1.MicroTime, as leases and events carry it. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000Z');
}
