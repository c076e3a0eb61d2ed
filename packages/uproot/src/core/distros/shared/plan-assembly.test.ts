import { describe, expect, it } from 'vitest';
import { definitionEditor, editChanges, undoChanges } from './definition-edit.js';
import { PlanAssembly } from './plan-assembly.js';
import { verifyProviderIdsStep } from './common-steps.js';

describe('PlanAssembly', () => {
  it('names a file after the step about to be added, by that step’s position', () => {
    const plan = new PlanAssembly();
    plan.addFileAfterStep('grant-migration-lease', 'a.yaml', 'a');
    plan.addStep(verifyProviderIdsStep('test'));
    plan.addFileAfterStep('install-ccm', 'b.yaml', 'b', 'dir/b.yaml');
    expect(plan.artifacts).toEqual([
      {
        path: 'steps/01-grant-migration-lease/a.yaml',
        description: 'a.yaml after step grant-migration-lease',
        content: 'a',
      },
      { path: 'steps/02-install-ccm/b.yaml', description: 'dir/b.yaml after step install-ccm', content: 'b' },
    ]);
  });
});

describe('definitionEditor', () => {
  const start = { object: { flag: false }, text: 'flag: false\n' };
  const editor = (plan: PlanAssembly) =>
    definitionEditor({
      file: 'clusters/cluster.yml',
      target: { file: 'clusters/cluster.yml' },
      start,
      render: (object) => `flag: ${String((object as { flag: boolean }).flag)}\n`,
      // enable-leader-migration sets the flag; every other step leaves the definition alone.
      apply: (id, object) => (id === 'enable-leader-migration' ? { flag: true } : object),
      assembly: plan,
    });

  it('records the file after each step that changes it, and moves on from there', () => {
    const plan = new PlanAssembly();
    const definition = editor(plan);
    plan.addStep(verifyProviderIdsStep('test'));
    const edit = definition.edit('enable-leader-migration', 'set the flag', 'clear the flag');
    expect(edit?.change).toMatchObject({
      description: 'set the flag',
      patch: [{ op: 'replace', path: '/flag', value: true }],
    });
    expect(edit?.undo).toMatchObject({
      description: 'clear the flag',
      patch: [{ op: 'replace', path: '/flag', value: false }],
    });
    expect(definition.current).toEqual({ object: { flag: true }, text: 'flag: true\n' });
    expect(plan.artifacts).toEqual([
      {
        path: 'steps/02-enable-leader-migration/cluster.yml',
        description: 'clusters/cluster.yml after step enable-leader-migration',
        content: 'flag: true\n',
      },
    ]);
  });

  it('records nothing and has no changes for a step that leaves the definition as it is', () => {
    const plan = new PlanAssembly();
    const definition = editor(plan);
    const edit = definition.edit('install-ccm', 'nothing', 'nothing');
    expect(edit).toBeUndefined();
    expect(editChanges(edit, { type: 'manual', description: 'apply', instructions: 'rke up' })).toEqual([]);
    expect(undoChanges(edit)).toEqual([]);
    expect(plan.artifacts).toEqual([]);
    expect(definition.current).toBe(start);
  });
});
