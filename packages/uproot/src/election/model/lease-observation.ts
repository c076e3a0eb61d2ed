/**
 * One look at a Lease from outside (a watch event or a poll), as the lease watcher records it and uproot's
 * ownership inference (src/core/ownership) reads it. `time` is the observer's clock, in milliseconds.
 */
export interface LeaseObservation {
  readonly time: number;
  readonly name: string;
  readonly namespace?: string;
  /** False when the lease did not exist. */
  readonly present: boolean;
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  readonly renewTime?: number;
  readonly acquireTime?: number;
  readonly leaseTransitions?: number;
  readonly resourceVersion?: string;
}
