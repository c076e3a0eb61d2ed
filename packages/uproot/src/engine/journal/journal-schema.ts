/**
 * The migration journal: everything `uproot migrate --resume` and `uproot rollback` need to continue or undo a
 * migration, kept in the cluster (a ConfigMap, see journal-codec.ts) and mirrored locally. Plain JSON,
 * validated with zod on every read, versioned by `schemaVersion`. Never holds Secret data (see sanitize.ts).
 */
import { z } from 'zod';
import {
  apiTargetSchema,
  distroSchema,
  gateSchema,
  migrationPlanSchema,
  objectRefSchema,
  stepIdSchema,
} from '../../core/model/plan-types.js';
import { leaseRecordSchema } from '../../core/ownership/index.js';

export const JOURNAL_SCHEMA_VERSION = 'uproot.dev/journal/v1';

/** A field path into a JSON object (object keys and array indexes). */
const pathSchema = z.array(z.union([z.string(), z.number()]));

/** One field a change set: its value before and after (a side is absent when the field did not exist). */
export const fieldChangeSchema = z.object({
  path: pathSchema,
  before: z.object({ value: z.unknown() }).optional(),
  after: z.object({ value: z.unknown() }).optional(),
});
export type FieldChange = z.infer<typeof fieldChangeSchema>;

/** What a change's target looked like before the change: read before anything was written. */
export const backupSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('object'),
    ref: objectRefSchema,
    /** The object as read, without metadata.managedFields; a Secret's data is never kept. */
    object: z.record(z.string(), z.unknown()),
  }),
  z.object({ type: z.literal('object-absent'), ref: objectRefSchema }),
  z.object({ type: z.literal('file'), path: z.string(), content: z.string() }),
  z.object({ type: z.literal('file-absent'), path: z.string() }),
  z.object({
    type: z.literal('node-scheduling'),
    /** Every node the selector matched, with its spec.unschedulable before the change. */
    nodes: z.array(z.object({ name: z.string(), unschedulable: z.boolean() })),
  }),
  z.object({ type: z.literal('none'), reason: z.string() }),
]);
export type Backup = z.infer<typeof backupSchema>;

export const backupEntrySchema = z.object({ change: z.number().int().nonnegative(), backup: backupSchema });
export type BackupEntry = z.infer<typeof backupEntrySchema>;

/** What applying one change did. Recorded after the change, so rollback knows what to undo. */
export const changeRecordSchema = z.object({
  change: z.number().int().nonnegative(),
  outcome: z.enum(['changed', 'unchanged', 'confirmed']),
  at: z.string(),
  /** The fields the change set (before → after), computed from the backup: rollback inverts exactly these. */
  fields: z.array(fieldChangeSchema).optional(),
  /** Nodes whose scheduling the change flipped (cordon/uncordon). */
  nodes: z.array(z.string()).optional(),
  /** Where a file's previous version was kept (RKE cluster.yml.uproot-<step>-<ts>.bak). */
  backupFile: z.string().optional(),
  /** sha256 of a written file, to tell later whether someone edited it since. */
  writtenSha256: z.string().optional(),
  detail: z.string().optional(),
});
export type ChangeRecord = z.infer<typeof changeRecordSchema>;

export const gateResultSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('passed'),
    /** Milliseconds from the first check to the one that passed. */
    after: z.number(),
    detail: z.string().optional(),
  }),
  z.object({ type: z.literal('failed'), reason: z.string(), fix: z.string() }),
  z.object({ type: z.literal('timed-out'), last: z.string(), fix: z.string() }),
]);
export type GateResult = z.infer<typeof gateResultSchema>;

export const gateRecordSchema = z.object({
  gate: gateSchema,
  startedAt: z.string(),
  finishedAt: z.string(),
  result: gateResultSchema,
});
export type GateRecord = z.infer<typeof gateRecordSchema>;

const work = {
  id: stepIdSchema,
  startedAt: z.string(),
  backups: z.array(backupEntrySchema),
  /** Changes done so far, by index; a change listed here is never redone on resume. */
  changes: z.array(changeRecordSchema),
};

/**
 * A step's state. pending → applying (intent + backups written first) → applied → verifying → verified, or
 * failed (in the apply or verify phase; resumable), or rolled-back.
 */
export const stepRecordSchema = z.discriminatedUnion('state', [
  z.object({ id: stepIdSchema, state: z.literal('pending') }),
  z.object({ ...work, state: z.literal('applying') }),
  z.object({ ...work, state: z.literal('applied'), appliedAt: z.string() }),
  z.object({
    ...work,
    state: z.literal('verifying'),
    appliedAt: z.string(),
    gates: z.array(gateRecordSchema),
  }),
  z.object({
    ...work,
    state: z.literal('verified'),
    appliedAt: z.string(),
    verifiedAt: z.string(),
    gates: z.array(gateRecordSchema),
  }),
  z.object({
    ...work,
    state: z.literal('failed'),
    phase: z.enum(['apply', 'verify']),
    failedAt: z.string(),
    code: z.string(),
    reason: z.string(),
    fix: z.string(),
    gates: z.array(gateRecordSchema),
  }),
  z.object({
    ...work,
    state: z.literal('rolled-back'),
    rolledBackAt: z.string(),
    /** Gates checked after the undo (those that held before the step). */
    gates: z.array(gateRecordSchema),
  }),
]);
export type StepRecord = z.infer<typeof stepRecordSchema>;
export type StepState = StepRecord['state'];
export type WorkRecord = Exclude<StepRecord, { state: 'pending' }>;

// A holder change of a watched Lease: the ownership analysis's record (src/core/ownership/lease-record.ts).
export { leaseRecordSchema, type LeaseRecord } from '../../core/ownership/index.js';

export const loadBalancerRecordSchema = z.object({
  namespace: z.string(),
  name: z.string(),
  hostnames: z.array(z.string()),
  ips: z.array(z.string()),
});
export type LoadBalancerRecord = z.infer<typeof loadBalancerRecordSchema>;

export const journalLocationSchema = z.object({
  api: apiTargetSchema,
  namespace: z.string(),
  name: z.string(),
});
export type JournalLocation = z.infer<typeof journalLocationSchema>;

export const runRecordSchema = z.object({
  runId: z.string(),
  command: z.enum(['migrate', 'rollback']),
  startedAt: z.string(),
  resumed: z.boolean(),
});
export type RunRecord = z.infer<typeof runRecordSchema>;

export const rollbackRecordSchema = z.object({
  startedAt: z.string(),
  /** The step being undone; set before its first undo write, so a crash resumes it (undo is idempotent). */
  undoing: stepIdSchema.optional(),
  completedAt: z.string().optional(),
  /** The started step that changed the Kubernetes version, which the rollback stopped before. */
  stoppedAt: stepIdSchema.optional(),
});
export type RollbackRecord = z.infer<typeof rollbackRecordSchema>;

export const journalSchema = z.object({
  schemaVersion: z.literal(JOURNAL_SCHEMA_VERSION),
  cluster: z.object({ name: z.string(), distro: distroSchema }),
  location: journalLocationSchema,
  /** Bumped on every save; a save expecting revision N that finds another N+1 is a second writer. */
  revision: z.number().int().nonnegative(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** The plan being executed, fixed at the start (resume never re-plans a half-migrated cluster). */
  plan: migrationPlanSchema,
  runs: z.array(runRecordSchema),
  /** What must survive the migration, recorded before the first step. */
  baseline: z.object({
    recordedAt: z.string(),
    loadBalancers: z.array(loadBalancerRecordSchema),
  }),
  steps: z.array(stepRecordSchema),
  leaseTimeline: z.array(leaseRecordSchema),
  rollback: rollbackRecordSchema.optional(),
});
export type Journal = z.infer<typeof journalSchema>;
