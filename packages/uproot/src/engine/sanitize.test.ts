import { describe, expect, it } from 'vitest';
import { comparable, sanitizeObject, sanitizePlan, REDACTED, carriesRedactedSecret } from './sanitize.js';
import { plan, step } from './testing/plan-fixtures.js';

describe('sanitize', () => {
  it('drops managedFields and never keeps a Secret’s data', () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 's',
        managedFields: [{ manager: 'x' }],
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"k":"c2VjcmV0"}}' },
      },
      data: { k: 'c2VjcmV0' },
      stringData: { t: 'token' },
    };
    const out = sanitizeObject(secret);
    expect(JSON.stringify(out)).not.toMatch(/c2VjcmV0|token|managedFields/);
    expect(out.data).toEqual({ k: REDACTED });
    expect(secret.data.k).toBe('c2VjcmV0'); // the input is not changed
  });

  it('keeps only what a step can change for diffs', () => {
    expect(
      comparable({
        metadata: { name: 'x', resourceVersion: '5', generation: 2, uid: 'u', labels: { a: 'b' } },
        spec: { x: 1 },
        status: { y: 2 },
      }),
    ).toEqual({
      metadata: { name: 'x', labels: { a: 'b' } },
      spec: { x: 1 },
    });
  });

  it('redacts Secrets in the journaled plan and drops artifacts', () => {
    const p = {
      ...plan([
        step('install-ccm', [
          {
            type: 'apply-object',
            description: 'creds',
            api: 'downstream',
            object: {
              apiVersion: 'v1',
              kind: 'Secret',
              metadata: { name: 'c' },
              stringData: { key: 'AKIA...' },
            },
          },
        ]),
      ]),
      artifacts: [{ path: 'RUNBOOK.md', description: '', content: 'x' }],
    };
    const out = sanitizePlan(p);
    expect(JSON.stringify(out)).not.toContain('AKIA');
    expect(out.artifacts).toEqual([]);
    expect(carriesRedactedSecret(out.steps[0]!.changes[0]!)).toBe(true);
  });
});
