import { describe, expect, it } from 'vitest';
import { beginApply } from './journal-transitions.js';
import { decodeJournal, encodeJournal, JOURNAL_SIZE_LIMIT } from './journal-codec.js';
import { configMapPatch, journalFor, plan, step } from '../testing/plan-fixtures.js';

const p = plan([step('grant-migration-lease', [configMapPatch('a', 'k', 'v')]), step('install-ccm', [])]);

describe('journal codec', () => {
  it('round-trips through one key per step', () => {
    const j = beginApply(
      journalFor(p),
      'install-ccm',
      [{ change: 0, backup: { type: 'file', path: '/x', content: 'y' } }],
      5,
    );
    const data = encodeJournal(j);
    expect(Object.keys(data).sort()).toEqual([
      'journal.json',
      'lease-timeline.json',
      'plan.json',
      'step.grant-migration-lease.json',
      'step.install-ccm.json',
    ]);
    expect(decodeJournal(data, 'configmap x')).toEqual(j);
  });

  it('names the ConfigMap and key of a damaged journal', () => {
    const data = encodeJournal(journalFor(p));
    expect(() =>
      decodeJournal({ ...data, 'step.install-ccm.json': '{' }, 'configmap kube-system/uproot-migration'),
    ).toThrow(/configmap kube-system\/uproot-migration is unreadable: not JSON/);
    const { ['plan.json']: _gone, ...missing } = data;
    expect(() => decodeJournal(missing, 'cm')).toThrow(/the key is missing/);
    const bad = JSON.parse(data['step.install-ccm.json']!) as Record<string, unknown>;
    expect(() =>
      decodeJournal(
        { ...data, 'step.install-ccm.json': JSON.stringify({ ...bad, state: 'exploded' }) },
        'cm',
      ),
    ).toThrow(/unreadable/);
  });

  it('refuses to grow past the ConfigMap size limit', () => {
    const big = beginApply(
      journalFor(p),
      'install-ccm',
      [{ change: 0, backup: { type: 'file', path: '/x', content: 'x'.repeat(JOURNAL_SIZE_LIMIT) } }],
      0,
    );
    expect(() => encodeJournal(big)).toThrow(/over the 900 KiB/);
  });
});
