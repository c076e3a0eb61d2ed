/** What `uproot migrate` takes, and what preflight's report comes to for it (migrate.ts and migrate-sources.ts). */
import type { StepId } from '../core/model/plan-types.js';
import type { CheckId } from '../core/checks/index.js';
import type { ExecutionFlags } from './session/run-settings.js';
import type { TargetFlags } from './targets.js';

export interface MigrateOptions extends TargetFlags, ExecutionFlags {
  /** A plan reviewed beforehand (`uproot plan -o json`) instead of planning now. */
  readonly planFile?: string;
  readonly targetVersion?: string;
  /** Accept a target release newer than uproot's release table (a brand-new release). */
  readonly allowUnknownRelease?: boolean;
  /** A cloud-controller-manager image tag instead of the pinned release. */
  readonly ccmImageTag?: string;
  /** Move nodeipam to the CCM too, where the CCM release implements it (the planner refuses otherwise). */
  readonly withNodeIpam?: boolean;
  /** Show the plan (or, with resume, what would happen next) and change nothing. */
  readonly dryRun?: boolean;
  /** Do not ask for confirmation (required when not at a terminal). */
  readonly yes?: boolean;
  /** Continue the journaled migration. */
  readonly resume?: boolean;
  /**
   * Continue the journaled migration if one is unfinished, else start one: what a Job runs, so that the pod
   * replacing a dead one carries on where it stopped.
   */
  readonly autoResume?: boolean;
  /** Stop once this step is verified. */
  readonly until?: StepId;
  readonly skipPreflight?: boolean;
  /** Where the local journal copy goes (default <cwd>/.uproot). */
  readonly stateDir?: string;
}

export interface PreflightVerdict {
  readonly outcome: 'pass' | 'warn' | 'fail';
  /** One line per failed check, with its fix. */
  readonly failures: readonly string[];
  /** The failed checks' ids, in the order of `failures` (to tell those the plan itself fixes). */
  readonly failedChecks?: readonly CheckId[];
}
