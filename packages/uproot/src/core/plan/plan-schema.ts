/** The JSON Schema of the plan document (docs/plan.schema.json), generated from the zod schemas. */
import { z } from 'zod';
import { migrationPlanSchema } from '../model/plan-types.js';

export function planJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(migrationPlanSchema, { io: 'output', target: 'draft-2020-12' }),
    $id: 'https://uproot.dev/schemas/plan/v1.json',
    title: 'uproot migration plan (uproot.dev/plan/v1)',
  };
}

export function planJsonSchemaText(): string {
  return `${JSON.stringify(planJsonSchema(), null, 2)}\n`;
}
