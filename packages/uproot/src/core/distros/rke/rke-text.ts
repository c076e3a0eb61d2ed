/** The RKE transformations applied to a file's text (comments and untouched bytes kept). */
import { InputError } from '../../../errors/index.js';
import type { StepId } from '../../model/plan-types.js';
import type { StepOptions } from '../distro.js';
import { isRecord } from '../../model/json-value.js';
import { documentValue, editYamlText, parseStream } from '../shared/yaml-edit.js';
import { isRkeDocument } from './rke-cluster.js';
import { rkeApplyStep } from './rke-steps.js';

export function rkeApplyStepToText(stepId: StepId, text: string, options: StepOptions): string {
  const values = parseStream(text).map(documentValue);
  const index = values.findIndex(isRkeDocument);
  if (index < 0) {
    throw new InputError('UP-PLAN-RKE-NO-CLUSTER', 'the text is not an RKE cluster definition', {
      hint: "give cluster.yml or Rancher's cluster YAML",
    });
  }
  const next = rkeApplyStep(stepId, values[index], options);
  if (!isRecord(next) || next === values[index]) return text;
  return editYamlText(text, index, next);
}
