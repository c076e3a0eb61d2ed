/** The RKE2 transformations applied to a file's text (comments and untouched bytes kept). */
import { InputError } from '../../../errors/index.js';
import type { StepId } from '../../model/plan-types.js';
import type { StepOptions } from '../distro.js';
import { cloneJson, getPath, isRecord } from '../../model/json-value.js';
import { documentValue, editYamlText, parseStream } from '../shared/yaml-edit.js';
import { findClusters, type Rke2Definition } from './rke2-cluster.js';
import { rke2ApplyStep } from './rke2-steps.js';

/** Puts `value` at `path` inside a copy of `root` (an empty path replaces the root). */
export function setIn(root: unknown, path: readonly (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = cloneJson(root);
  let node = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = value;
  return copy;
}

/** The definition's file with its Cluster replaced by `cluster`. */
export function rke2RenderFile(def: Rke2Definition, cluster: unknown): string {
  const doc = def.parsed.values[def.docIndex];
  return editYamlText(def.file.text, def.docIndex, setIn(doc, def.pathInDoc, cluster));
}

export function rke2ApplyStepToText(stepId: StepId, text: string, options: StepOptions): string {
  const values = parseStream(text).map(documentValue);
  const [where] = findClusters(values);
  if (!where) {
    throw new InputError('UP-PLAN-RKE2-NO-CLUSTER', 'the text has no provisioning.cattle.io Cluster', {
      hint: 'give the file that holds the Rancher Cluster object',
    });
  }
  const cluster = getPath(values[where.docIndex], where.path);
  const next = rke2ApplyStep(stepId, cluster, options);
  if (!isRecord(next) || next === cluster) return text;
  return editYamlText(text, where.docIndex, setIn(values[where.docIndex], where.path, next));
}
