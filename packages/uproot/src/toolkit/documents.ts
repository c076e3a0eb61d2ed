/**
 * What the toolkit's calls return and how each reads as text: plans (their steps and gates), engine events,
 * journals and run results, preflight reports, fleet rows, and the built-in example clusters `plan --example`
 * names. The CLI prints these and imports them from here, never from the engine, the adapters or core's
 * folders (eslint.config.js, `uproot/imports-within` on src/cli). Each stays defined where it lives; this is
 * only the toolkit's door to it.
 */
export {
  DISTROS,
  STEP_IDS,
  isStepId,
  type Distro,
  type Gate,
  type StepId,
} from '../core/model/plan-types.js';
export { renderPlanText } from '../core/plan/render-text.js';
export { describeGate } from '../engine/gates/evaluate-gate.js';
export type { EngineEvent } from '../engine/events.js';
export type { Journal } from '../engine/journal/journal-schema.js';
export type { RunResult } from '../engine/run-plan.js';
export { preflightReportSchema, renderPreflightText, type PreflightReport } from '../core/checks/index.js';
export {
  describeOutcome,
  describeProgress,
  type FleetStatusRow,
  type JobState,
} from '../core/fleet/index.js';
export { EXAMPLES } from '../adapters/cluster-source/index.js';
