import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { UprootError } from '../../errors/index.js';
import { planClusterFiles } from '../plan/plan-cluster.js';
import { detectDistro, parseDistro } from './detect.js';
import { example } from './shared/test-support/examples.js';

const EXAMPLES = [
  'rke2-cluster.yaml',
  'rke-cluster.yml',
  'rancher-rke-cluster.yaml',
  'kube-controller-manager.yaml',
].map(example);

function errorOf(fn: () => unknown): UprootError | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    if (UprootError.is(error)) return error;
    throw error;
  }
}

describe('detectDistro', () => {
  it('detects every shipped example', () => {
    expect(EXAMPLES.map((f) => detectDistro([f]))).toEqual(['rke2', 'rke', 'rke', 'kubeadm']);
  });

  it('names the kind it found and the kinds it accepts', () => {
    const error = errorOf(() =>
      detectDistro([
        { path: 'deploy.yaml', text: 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n' },
      ]),
    );
    expect(error?.code).toBe('UP-PLAN-UNKNOWN-INPUT');
    expect(error?.message).toContain('a Deployment (apps/v1)');
    expect(error?.hint).toContain('provisioning.cattle.io/v1 Cluster');
    expect(error?.location).toMatchObject({
      file: 'deploy.yaml',
      line: 1,
      field: 'kind',
      value: 'Deployment',
    });
  });

  it('refuses a --distro that contradicts the file, and unknown distros', () => {
    const error = errorOf(() => detectDistro([EXAMPLES[0]!], 'rke'));
    expect(error?.code).toBe('UP-PLAN-DISTRO-MISMATCH');
    expect(error?.hint).toContain('--distro rke2');
    expect(errorOf(() => parseDistro('k3s'))?.code).toBe('UP-PLAN-DISTRO');
  });

  it('reports a YAML syntax error with its line and column', () => {
    const error = errorOf(() => detectDistro([{ path: 'bad.yaml', text: 'a: 1\nb: [1, 2\nc: 3\n' }]));
    expect(error?.code).toBe('UP-PLAN-YAML');
    expect(error?.location?.file).toBe('bad.yaml');
    expect(error?.location?.line).toBeGreaterThanOrEqual(2);
    expect(error?.location?.column).toBeGreaterThanOrEqual(1);
  });
});

/** Every failure on any input must be a located user error, never a crash. */
function expectLocatedOrPlanned(text: string): void {
  try {
    const { plan } = planClusterFiles([{ path: 'in.yaml', text }]);
    expect(['migrate', 'nothing-to-do']).toContain(plan.outcome.type);
  } catch (error) {
    if (!UprootError.is(error)) throw error;
    expect(error.source, `${error.code}: ${error.message}`).toBe('user');
    expect(
      error.location?.file ?? (error.location?.field?.startsWith('--') ? 'flag' : undefined),
      error.message,
    ).toBeDefined();
    expect(
      error.location?.line !== undefined || error.location?.field !== undefined,
      `${error.code}: ${error.message}`,
    ).toBe(true);
  }
}

function mutateJson(value: unknown, path: number[], replacement: unknown): unknown {
  if (path.length === 0 || value === null || typeof value !== 'object') return replacement;
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  if (entries.length === 0) return replacement;
  const [head, ...rest] = path;
  const index = head! % entries.length;
  const [key, child] = entries[index]!;
  if (Array.isArray(value)) {
    const out = [...(value as unknown[])];
    if (rest.length === 0 && head! % 3 === 0) out.splice(key as number, 1);
    else out[key as number] = mutateJson(child, rest, replacement);
    return out;
  }
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  if (rest.length === 0 && head! % 3 === 0) delete out[key];
  else out[key] = mutateJson(child, rest, replacement);
  return out;
}

describe('parsers never crash (property)', () => {
  const replacement = fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant([]),
    fc.constant({}),
    fc.constant('v1.26.1'),
  );

  it('random text and random YAML values', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 200 }),
          fc.jsonValue({ maxDepth: 4 }).map((v) => stringify(v)),
        ),
        (text) => {
          expectLocatedOrPlanned(text);
        },
      ),
      { numRuns: 300 },
    );
  }, 120_000);

  it('the examples with fields deleted, retyped and replaced', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...EXAMPLES),
        fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
        replacement,
        (file, path, value) => {
          expectLocatedOrPlanned(stringify(mutateJson(parse(file.text), path, value)));
        },
      ),
      { numRuns: 120 },
    );
  }, 180_000);

  it('the examples truncated, or with a line deleted', () => {
    fc.assert(
      fc.property(fc.constantFrom(...EXAMPLES), fc.nat(), fc.boolean(), (file, n, truncate) => {
        const lines = file.text.split('\n');
        const text = truncate
          ? file.text.slice(0, n % file.text.length)
          : lines.filter((_, i) => i !== n % lines.length).join('\n');
        expectLocatedOrPlanned(text);
      }),
      { numRuns: 120 },
    );
  }, 180_000);
});
