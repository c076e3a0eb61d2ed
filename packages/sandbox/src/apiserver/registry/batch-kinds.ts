import type { KubeObject } from '../kube-object.js';
import { obj, str } from '../tables/cells.js';
import { age, humanDuration } from '../tables/human-duration.js';
import { AGE_COLUMN, column, NAME_COLUMN, type TablePrinter } from '../tables/table.js';
import { genericSchema } from '../patch/patch-schema.js';
import { defineResource, type ResourceType } from './resource-type.js';

const conditionTrue = (job: KubeObject, type: string): boolean =>
  Array.isArray(obj(job.status).conditions) &&
  (obj(job.status).conditions as unknown[]).some((c) => obj(c).type === type && obj(c).status === 'True');

/**
 * `kubectl get jobs`: Status (Complete, Failed, Suspended, FailureTarget shown as Failing, else Running),
 * Completions, Duration and Age, as kubernetes/kubernetes pkg/printers/internalversion/printers.go printJob
 * prints them since 1.31.
 */
const jobPrinter: TablePrinter = {
  columns: [
    NAME_COLUMN,
    column('Status', 'string', { description: 'Status of the job.' }),
    column('Completions', 'string', { description: 'The completion status of the job.' }),
    column('Duration', 'string', { description: 'Time required to complete the job.' }),
    AGE_COLUMN,
  ],
  row: (job, now) => {
    const spec = obj(job.spec);
    const status = obj(job.status);
    const state = conditionTrue(job, 'Complete')
      ? 'Complete'
      : conditionTrue(job, 'Failed')
        ? 'Failed'
        : conditionTrue(job, 'FailureTarget')
          ? 'Failing'
          : spec.suspend === true
            ? 'Suspended'
            : 'Running';
    const completions = typeof spec.completions === 'number' ? spec.completions : 1;
    const started = Date.parse(str(status.startTime));
    const ended = Date.parse(str(status.completionTime));
    const duration = Number.isNaN(started)
      ? ''
      : humanDuration((Number.isNaN(ended) ? now : ended) - started);
    return [
      job.metadata?.name ?? '',
      state,
      `${typeof status.succeeded === 'number' ? status.succeeded : 0}/${completions}`,
      duration,
      age(job.metadata?.creationTimestamp, now),
    ];
  },
};

/** batch/v1 Jobs: stored and served; the sandbox's Job controller (src/sandbox/fleet) runs them. */
export function batchKinds(): ResourceType[] {
  return [
    defineResource({
      group: 'batch',
      version: 'v1',
      resource: 'jobs',
      kind: 'Job',
      namespaced: true,
      categories: ['all'],
      subresources: ['status'],
      tracksGeneration: true,
      printer: jobPrinter,
      patchSchema: genericSchema,
    }),
  ];
}
