import { describe, expect, it } from 'vitest';
import { daemonSetSchema, nodeSchema, podSchema } from './patch-schema.js';
import { strategicMergePatch } from './strategic-merge-patch.js';

const pod = {
  metadata: { name: 'p', labels: { a: '1' }, finalizers: ['x'] },
  spec: {
    containers: [
      {
        name: 'app',
        image: 'app:1',
        args: ['--a', '--b'],
        env: [
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ],
        ports: [{ containerPort: 80, name: 'http' }],
        volumeMounts: [{ name: 'data', mountPath: '/data' }],
      },
      { name: 'sidecar', image: 'side:1' },
    ],
    tolerations: [{ key: 't1', operator: 'Exists' }],
    volumes: [{ name: 'data', emptyDir: {} }],
  },
  status: {
    conditions: [
      { type: 'Ready', status: 'False' },
      { type: 'Initialized', status: 'True' },
    ],
  },
};

describe('strategicMergePatch', () => {
  it('merges containers and env by name, keeping the rest', () => {
    const out = strategicMergePatch(
      pod,
      {
        spec: {
          containers: [
            {
              name: 'app',
              image: 'app:2',
              env: [
                { name: 'B', value: '3' },
                { name: 'C', value: '4' },
              ],
            },
          ],
        },
      },
      podSchema,
    ) as typeof pod;
    expect(out.spec.containers).toHaveLength(2);
    expect(out.spec.containers[0]).toMatchObject({ image: 'app:2', args: ['--a', '--b'] });
    expect(out.spec.containers[0]!.env).toEqual([
      { name: 'A', value: '1' },
      { name: 'B', value: '3' },
      { name: 'C', value: '4' },
    ]);
  });

  it('replaces atomic lists (args, tolerations)', () => {
    const out = strategicMergePatch(
      pod,
      {
        spec: {
          tolerations: [{ key: 't2', operator: 'Exists' }],
          containers: [{ name: 'app', args: ['--c'] }],
        },
      },
      podSchema,
    ) as typeof pod;
    expect(out.spec.tolerations).toEqual([{ key: 't2', operator: 'Exists' }]);
    expect(out.spec.containers[0]!.args).toEqual(['--c']);
  });

  it('merges conditions by type and ports by containerPort', () => {
    const out = strategicMergePatch(
      pod,
      {
        status: { conditions: [{ type: 'Ready', status: 'True' }] },
        spec: { containers: [{ name: 'app', ports: [{ containerPort: 443 }] }] },
      },
      podSchema,
    ) as typeof pod;
    expect(out.status.conditions).toEqual([
      { type: 'Ready', status: 'True' },
      { type: 'Initialized', status: 'True' },
    ]);
    expect(out.spec.containers[0]!.ports!.map((p) => p.containerPort)).toEqual([80, 443]);
  });

  it('honours $patch: delete in lists and maps, and null deletes fields', () => {
    const out = strategicMergePatch(
      pod,
      {
        metadata: { labels: { a: null } },
        spec: {
          containers: [{ name: 'sidecar', $patch: 'delete' }],
          volumes: [{ name: 'data', $patch: 'delete' }],
        },
      },
      podSchema,
    ) as typeof pod;
    expect(out.spec.containers.map((c) => c.name)).toEqual(['app']);
    expect(out.spec.volumes).toEqual([]);
    expect(out.metadata.labels).toEqual({});
  });

  it('honours $patch: replace on a list and on a map', () => {
    const out = strategicMergePatch(
      pod,
      {
        spec: { containers: [{ $patch: 'replace' }, { name: 'only', image: 'o:1' }] },
        metadata: { labels: { $patch: 'replace', b: '2' } },
      },
      podSchema,
    ) as typeof pod;
    expect(out.spec.containers).toEqual([{ name: 'only', image: 'o:1' }]);
    expect(out.metadata.labels).toEqual({ b: '2' });
  });

  it('reorders with $setElementOrder and drops the directive', () => {
    const out = strategicMergePatch(
      pod,
      {
        spec: {
          '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }],
          containers: [{ name: 'app', image: 'app:3' }],
        },
      },
      podSchema,
    ) as Record<string, unknown> & typeof pod;
    expect(out.spec.containers.map((c) => c.name)).toEqual(['sidecar', 'app']);
    expect(Object.keys(out.spec)).not.toContain('$setElementOrder/containers');
  });

  it('deletes from primitive lists and unions merged primitive lists', () => {
    const out = strategicMergePatch(
      pod,
      { metadata: { finalizers: ['y'], '$deleteFromPrimitiveList/finalizers': ['x'] } },
      podSchema,
    ) as typeof pod;
    expect(out.metadata.finalizers).toEqual(['y']);
    const union = strategicMergePatch(pod, { metadata: { finalizers: ['y'] } }, podSchema) as typeof pod;
    expect(union.metadata.finalizers).toEqual(['x', 'y']);
  });

  it('applies $retainKeys to volumes', () => {
    const out = strategicMergePatch(
      pod,
      { spec: { volumes: [{ name: 'data', hostPath: { path: '/x' }, $retainKeys: ['name', 'hostPath'] }] } },
      podSchema,
    ) as typeof pod;
    expect(out.spec.volumes).toEqual([{ name: 'data', hostPath: { path: '/x' } }]);
  });

  it('sets scalars like cordon does and leaves the original untouched', () => {
    const node = { metadata: { name: 'n' }, spec: { providerID: 'aws:///x' } };
    expect(strategicMergePatch(node, { spec: { unschedulable: true } }, nodeSchema)).toEqual({
      metadata: { name: 'n' },
      spec: { providerID: 'aws:///x', unschedulable: true },
    });
    expect(node.spec).toEqual({ providerID: 'aws:///x' });
  });

  it('reaches pod templates inside DaemonSets', () => {
    const ds = {
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'ccm', image: 'a' },
              { name: 'other', image: 'b' },
            ],
          },
        },
      },
    };
    const out = strategicMergePatch(
      ds,
      { spec: { template: { spec: { containers: [{ name: 'ccm', image: 'c' }] } } } },
      daemonSetSchema,
    ) as typeof ds;
    expect(out.spec.template.spec.containers).toEqual([
      { name: 'ccm', image: 'c' },
      { name: 'other', image: 'b' },
    ]);
  });

  it('rejects a merge-keyed element without its key', () => {
    expect(() => strategicMergePatch(pod, { spec: { containers: [{ image: 'x' }] } }, podSchema)).toThrow(
      /does not contain declared merge key: name/,
    );
  });
});
