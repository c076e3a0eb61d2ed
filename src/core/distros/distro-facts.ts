/** A distribution's facts by name, and the control-plane selector a plan runs with. */
import type { Distro, MigrationPlan } from '../plan/plan-types.js';
import { PLANNERS } from './detect.js';
import type { DistroFacts } from './distro.js';

export function distroFacts(distro: Distro): DistroFacts {
  return PLANNERS[distro].facts;
}

/** The plan's own control-plane selector (its cordon step), else the distribution's. */
export function controlPlaneSelectorFor(plan: MigrationPlan): string {
  for (const step of plan.steps) {
    for (const change of step.changes) if (change.type === 'cordon-nodes') return change.selector;
  }
  return distroFacts(plan.distro).controlPlaneSelector;
}
