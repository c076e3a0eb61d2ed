/**
 * A plan's steps and artifacts, collected in the order the planner decides them. Files as they stand after a
 * step are named after that step's position, so they are recorded just before the step is added.
 */
import type { Artifact, PlanStep } from '../../model/plan-types.js';
import { gates } from './plan-building.js';

/** `steps/03-install-ccm/cluster.yaml`: where --out puts the file as it stands after a step. */
export function stepArtifactPath(index: number, stepId: string, fileName: string): string {
  return `steps/${String(index + 1).padStart(2, '0')}-${stepId}/${fileName}`;
}

export class PlanAssembly {
  readonly steps: PlanStep[] = [];
  readonly artifacts: Artifact[] = [];

  /**
   * Every step ends with the promise gate, after the step's own gates (the restarts they wait for are then
   * over): its lease observations show no overlap and no gap past the bound (docs/decisions/0021).
   */
  addStep(step: PlanStep): void {
    const promise = step.gates.some((g) => g.type === 'promise-kept') ? [] : [gates.promiseKept()];
    this.steps.push({ ...step, gates: [...step.gates, ...promise] });
  }

  addArtifact(...artifacts: Artifact[]): void {
    this.artifacts.push(...artifacts);
  }

  /** The file `fileName` after the step about to be added; `label` names it in the description. */
  addFileAfterStep(stepId: string, fileName: string, content: string, label = fileName): void {
    this.artifacts.push({
      path: stepArtifactPath(this.steps.length, stepId, fileName),
      description: `${label} after step ${stepId}`,
      content,
    });
  }
}
