import { describe, expect, it } from 'vitest';
import type { Journal } from '../journal/journal-schema.js';
import { cordon, journalFor, plan, step, uncordon } from '../testing/plan-fixtures.js';
import { cordonedEarlier } from './node-scheduling.js';

const at = '2026-01-01T00:00:00.000Z';

function journalWith(states: Record<string, 'verified' | 'rolled-back' | 'pending'>): Journal {
  const p = plan([
    step('cordon-control-plane', [cordon('cp=true')]),
    step('install-ccm', []),
    step('switch-to-external', [uncordon('cp=true')]),
  ]);
  const journal = journalFor(p);
  return {
    ...journal,
    steps: journal.steps.map((s) => {
      const state = states[s.id] ?? 'pending';
      if (state === 'pending') return { id: s.id, state: 'pending' };
      const changes =
        s.id === 'cordon-control-plane'
          ? [{ change: 0, outcome: 'changed' as const, at, nodes: ['cp-1', 'cp-2'] }]
          : [{ change: 0, outcome: 'unchanged' as const, at, nodes: [] }];
      return state === 'verified'
        ? { id: s.id, state, startedAt: at, appliedAt: at, verifiedAt: at, backups: [], changes, gates: [] }
        : { id: s.id, state, startedAt: at, rolledBackAt: at, backups: [], changes };
    }) as Journal['steps'],
  };
}

describe('cordonedEarlier (undoing an uncordon that found nothing to flip)', () => {
  it('returns the nodes the earlier cordon step cordoned with the same selector', () => {
    const journal = journalWith({ 'cordon-control-plane': 'verified', 'switch-to-external': 'verified' });
    expect(cordonedEarlier(journal, 'switch-to-external', 'cp=true')).toEqual(['cp-1', 'cp-2']);
  });

  it('ignores another selector, a rolled-back cordon, and cordons after the step', () => {
    const journal = journalWith({ 'cordon-control-plane': 'verified', 'switch-to-external': 'verified' });
    expect(cordonedEarlier(journal, 'switch-to-external', 'other=true')).toEqual([]);
    expect(cordonedEarlier(journal, 'cordon-control-plane', 'cp=true')).toEqual([]);
    const undone = journalWith({ 'cordon-control-plane': 'rolled-back', 'switch-to-external': 'verified' });
    expect(cordonedEarlier(undone, 'switch-to-external', 'cp=true')).toEqual([]);
  });
});
