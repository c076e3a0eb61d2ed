/**
 * What the migration journal keeps of the managers' leases: each holder change of a watched Lease (the
 * migration lease or a manager's main lease), as seen by uproot's gates. Renewals by the same holder are not
 * news and are not kept. The journal's schema embeds this one (src/engine/journal/journal-schema.ts); the
 * inference reads it as LeaseObservations (profiled-inference.ts).
 */
import { z } from 'zod';
import { stepIdSchema } from '../plan/plan-types.js';

/** Where the managers' leases live. */
export const LEASE_NAMESPACE = 'kube-system';

/** Seconds of clock skew tolerated between uproot and the managers when judging a lease's renewTime. */
export const LEASE_FRESHNESS_GRACE_SECONDS = 5;

export const leaseRecordSchema = z.object({
  namespace: z.string(),
  name: z.string(),
  holder: z.string(),
  observedAt: z.string(),
  acquireTime: z.string().optional(),
  renewTime: z.string().optional(),
  leaseDurationSeconds: z.number().optional(),
  transitions: z.number().optional(),
  /**
   * The step whose gate looked. It orders looks made at the same instant (virtual time runs a step's
   * requests in no time at all), which `observedAt` alone cannot; absent in journals from before it was kept.
   */
  step: stepIdSchema.optional(),
});
/** A holder change of a watched lease, as the journal keeps it (times RFC 3339). */
export type LeaseRecord = z.infer<typeof leaseRecordSchema>;
