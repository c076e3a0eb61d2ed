/**
 * A plan's steps and artifacts, collected in the order the planner decides them. Files as they stand after a
 * step are named after that step's position, so they are recorded just before the step is added.
 */
import type { Artifact, PlanStep } from '../../plan/plan-types.js';

/** `steps/03-install-ccm/cluster.yaml`: where --out puts the file as it stands after a step. */
export function stepArtifactPath(index: number, stepId: string, fileName: string): string {
  return `steps/${String(index + 1).padStart(2, '0')}-${stepId}/${fileName}`;
}

export class PlanAssembly {
  readonly steps: PlanStep[] = [];
  readonly artifacts: Artifact[] = [];

  addStep(step: PlanStep): void {
    this.steps.push(step);
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
