/**
 * `uproot plan` as a library call: detect the distribution, read the definition, plan, and attach the
 * runbook. Pure: it takes file contents and returns the plan (the CLI does the reading and writing).
 */
import { InternalError } from '../../errors/index.js';
import type { ClusterDefinition, PlanOptions } from '../distros/distro.js';
import { PLANNERS, detectDistro } from '../distros/detect.js';
import type { SourceFile } from '../distros/shared/yaml-source.js';
import { migrationPlanSchema, type Distro, type MigrationPlan } from '../model/plan-types.js';
import { renderRunbook } from './runbook.js';

export interface PlanRequest extends PlanOptions {
  /** `--distro`: confirms detection (a contradiction is an InputError). */
  readonly distro?: Distro;
}

export interface PlanResult {
  readonly definition: ClusterDefinition;
  readonly plan: MigrationPlan;
}

export function planClusterFiles(files: readonly SourceFile[], request: PlanRequest = {}): PlanResult {
  const distro = detectDistro(files, request.distro);
  const planner = PLANNERS[distro];
  const definition = planner.read(files);
  const planned = planner.plan(definition, request);
  const plan: MigrationPlan =
    planned.outcome.type === 'migrate'
      ? {
          ...planned,
          artifacts: [
            ...planned.artifacts,
            {
              path: 'RUNBOOK.md',
              description: 'The steps in order with commands, gates and undo',
              content: renderRunbook(planned),
            },
          ],
        }
      : planned;
  const checked = migrationPlanSchema.safeParse(plan);
  if (!checked.success) {
    throw new InternalError(
      `the ${distro} planner produced a plan that does not match the plan schema: ${checked.error.message}`,
    );
  }
  return { definition, plan: checked.data };
}
