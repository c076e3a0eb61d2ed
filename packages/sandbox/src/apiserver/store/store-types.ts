import type { Clock, Random } from 'uproot';
import type { JsonObject, KubeObject } from '../kube-object.js';
import type { ResourceRef } from '../registry/resource-registry.js';
import type { ResourceType } from '../registry/resource-type.js';
import type { FieldSelector } from '../selectors/field-selector.js';
import type { LabelSelector } from '../selectors/label-selector.js';
import type { StoreEvent } from './event-log.js';

/** Options and results of the ObjectStore's operations. */

export interface StoreOptions {
  readonly clock: Clock;
  readonly random: Random;
  /** How many changes the event log keeps for watch resumption and paged-list snapshots. */
  readonly watchWindow: number;
}

export interface ListOptions {
  readonly namespace?: string;
  readonly labelSelector?: string | LabelSelector;
  readonly fieldSelector?: string | FieldSelector;
  readonly limit?: number;
  readonly continue?: string;
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: string;
}

export interface ListResult {
  readonly resourceType: ResourceType;
  readonly items: readonly KubeObject[];
  readonly resourceVersion: string;
  readonly continue?: string;
  readonly remainingItemCount?: number;
}

/**
 * Admission for one write, called once the resulting object is known and before anything is persisted (dry
 * runs included, no-op updates included, as the API server admits them): it may refuse by throwing, and may
 * edit `object` (mutating admission).
 */
export type Admit = (change: {
  readonly operation: 'CREATE' | 'UPDATE' | 'DELETE';
  readonly object?: JsonObject;
  readonly oldObject?: KubeObject;
}) => void;

export interface WriteOptions {
  readonly dryRun?: boolean;
  readonly admit?: Admit;
  readonly subresource?: 'status';
  /** The namespace of the request (defaults to the object's). */
  readonly namespace?: string;
}

export interface UpdateOptions extends WriteOptions {
  /** The name in the request URL; must match the object's. */
  readonly name?: string;
}

export interface DeleteOptions {
  readonly dryRun?: boolean;
  readonly admit?: Admit;
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
}

export interface DeleteResult {
  readonly object: KubeObject;
  /** False while finalizers hold the object (it then carries a deletionTimestamp). */
  readonly removed: boolean;
}

export type StoreListener = (event: StoreEvent) => void;

export interface SubscribeFilter {
  readonly resource?: ResourceRef;
  readonly namespace?: string;
}
