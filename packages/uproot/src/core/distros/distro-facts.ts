/** A distribution's facts by name, and the control-plane selector a plan runs with. */
import type { Distro, MigrationPlan } from '../model/plan-types.js';
import { PLANNERS } from './detect.js';
import type { DistroFacts } from './distro.js';

export function distroFacts(distro: Distro): DistroFacts {
  return PLANNERS[distro].facts;
}

/**
 * The facts a plan runs with: its distribution's, except that a plan editing a Rancher object (RKE under
 * Rancher: clusters.management.cattle.io) is rolled out by Rancher, which the cluster-rolled-out gate reads
 * from that object, not by a command uproot runs.
 */
export function planFacts(plan: MigrationPlan): DistroFacts {
  const facts = distroFacts(plan.distro);
  const editsObject = plan.steps.some((s) =>
    s.changes.some((c) => c.type === 'edit-cluster-definition' && !('file' in c.target)),
  );
  return editsObject && facts.rollout.type !== 'cluster-object'
    ? { ...facts, rollout: { type: 'cluster-object' } }
    : facts;
}

/** The plan's own control-plane selector (its cordon step), else the distribution's. */
export function controlPlaneSelectorFor(plan: MigrationPlan): string {
  for (const step of plan.steps) {
    for (const change of step.changes) if (change.type === 'cordon-nodes') return change.selector;
  }
  return distroFacts(plan.distro).controlPlaneSelector;
}
