/** Test helpers: the shipped examples, planning a file, error codes, and replaying a plan's transformations. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { UprootError } from '../../../../errors/index.js';
import type { ClusterDefinition, DistroPlanner, PlanOptions, SourceFile } from '../../distro.js';
import { stepOptionsFromPlan } from '../../distro.js';
import type { MigrationPlan } from '../../../model/plan-types.js';

const EXAMPLES_DIR = fileURLToPath(new URL('../../../../../examples/', import.meta.url));

export function example(name: string): SourceFile {
  return { path: `examples/${name}`, text: readFileSync(`${EXAMPLES_DIR}${name}`, 'utf8') };
}

/** Reads `text` as the one file `path` and plans it. */
export function planFile<D extends ClusterDefinition>(planner: DistroPlanner, path: string) {
  return (text: string, options: PlanOptions = {}): { def: D; plan: MigrationPlan } => {
    const def = planner.read([{ path, text }]) as D;
    return { def, plan: planner.plan(def, options) };
  };
}

/** The code of the UprootError `fn` throws, or 'no error'. */
export function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (UprootError.is(error)) return error.code;
    throw error;
  }
  return 'no error';
}

/** The UprootError a call throws (fails the test when it throws none or another kind). */
export function errorOf(fn: () => unknown): UprootError {
  try {
    fn();
  } catch (error) {
    if (UprootError.is(error)) return error;
    throw error;
  }
  throw new Error('expected an UprootError, got none');
}

/** Applies every step's object transformation in order (what the engine does to the live object). */
export function replayObject(
  planner: DistroPlanner,
  plan: MigrationPlan,
  start: unknown,
  skip: readonly string[] = [],
): unknown {
  const options = stepOptionsFromPlan(plan);
  return plan.steps
    .filter((s) => !skip.includes(s.id))
    .reduce((object, step) => planner.applyStep(step.id, object, options), start);
}

/** Applies every step's transformation to a file's text (what --out writes step by step). */
export function replayText(
  planner: DistroPlanner,
  plan: MigrationPlan,
  text: string,
  skip: readonly string[] = [],
): string {
  const options = stepOptionsFromPlan(plan);
  return plan.steps
    .filter((s) => !skip.includes(s.id))
    .reduce((t, step) => planner.applyStepToText(step.id, t, options), text);
}

/** The lines of `after` that are not in `before` and vice versa (a multiset line diff). */
export function changedLines(before: string, after: string): { added: string[]; removed: string[] } {
  const count = (text: string): Map<string, number> => {
    const m = new Map<string, number>();
    for (const line of text.split('\n')) m.set(line, (m.get(line) ?? 0) + 1);
    return m;
  };
  const b = count(before);
  const a = count(after);
  const added: string[] = [];
  const removed: string[] = [];
  for (const [line, n] of a) for (let i = b.get(line) ?? 0; i < n; i++) added.push(line);
  for (const [line, n] of b) for (let i = a.get(line) ?? 0; i < n; i++) removed.push(line);
  return { added, removed };
}
