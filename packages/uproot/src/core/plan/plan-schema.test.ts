import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { planJsonSchema, planJsonSchemaText } from './plan-schema.js';

const COMMITTED = fileURLToPath(new URL('../../../../../docs/plan.schema.json', import.meta.url));

describe('docs/plan.schema.json', () => {
  it('matches the schema generated from plan-types.ts (regenerate it when this fails)', () => {
    // Regenerate: npx tsx -e "import('./src/core/plan/plan-schema.js').then(m => process.stdout.write(m.planJsonSchemaText()))" > docs/plan.schema.json
    // Compared as JSON, so formatting the file (prettier) does not matter.
    expect(JSON.parse(readFileSync(COMMITTED, 'utf8'))).toEqual(JSON.parse(planJsonSchemaText()));
  });

  it('describes the plan document', () => {
    const schema = planJsonSchema() as { properties: Record<string, unknown>; required: string[] };
    expect(schema.required).toEqual(
      expect.arrayContaining(['schemaVersion', 'distro', 'steps', 'artifacts']),
    );
    expect(Object.keys(schema.properties)).toContain('decisions');
  });
});
