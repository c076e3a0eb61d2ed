import { describe, expect, it } from 'vitest';
import { journalFor, plan, step } from '../engine/testing/plan-fixtures.js';
import type { Journal } from '../engine/journal/journal-schema.js';
import { command, migrateCommand, resumeRefusal, type ResumeInput } from './resume-decision.js';

const DOWNSTREAM = { api: 'downstream', namespace: 'kube-system', name: 'uproot-migration' } as const;
const RANCHER = { api: 'management', namespace: 'fleet-default', name: 'uproot-migration-prod' } as const;
const FLAGS = { kubeconfig: '/home/me/.kube/config', context: 'prod' };

const journal = (location: Journal['location'] = DOWNSTREAM): Journal => ({
  ...journalFor(plan([step('install-ccm', [])], 'rke2')),
  location,
});

const input = (over: Partial<ResumeInput>): ResumeInput => ({
  resume: false,
  autoResume: false,
  flags: FLAGS,
  location: DOWNSTREAM,
  existing: undefined,
  localCopies: [],
  ...over,
});

describe('resumeRefusal', () => {
  it('lets a fresh start and --auto-resume with no journal anywhere go on (it starts the run)', () => {
    expect(resumeRefusal(input({}))).toBeUndefined();
    expect(resumeRefusal(input({ autoResume: true }))).toBeUndefined();
  });

  it('--resume with no journal yet: exit 2 with the exact command that starts the run, same target flags', () => {
    const error = resumeRefusal(input({ resume: true, targetVersion: '1.33' }));
    expect(error?.code).toBe('UP-MIGRATE-NOTHING-TO-RESUME');
    expect(error?.exitCode).toBe(2);
    expect(error?.message).toMatch(/no run wrote one yet/);
    expect(error?.hint).toContain(
      '`uproot migrate --kubeconfig /home/me/.kube/config --context prod --target-version 1.33 --yes`',
    );
    expect(error?.hint).toContain('--auto-resume');
  });

  it('--resume without the Rancher flags, the local copy in Rancher’s namespace: names the flags that reach it', () => {
    const copy = { path: '.uproot/prod/journal.json', journal: journal(RANCHER) };
    for (const over of [{ resume: true }, { autoResume: true }]) {
      const error = resumeRefusal(input({ ...over, localCopies: [copy] }));
      expect(error?.code).toBe('UP-MIGRATE-JOURNAL-ELSEWHERE');
      expect(error?.message).toContain('.uproot/prod/journal.json');
      expect(error?.message).toContain('fleet-default/uproot-migration-prod');
      expect(error?.hint).toContain('--rancher-context <rancher-context> --cluster fleet-default/prod');
      expect(error?.hint).toContain('--resume');
    }
  });

  it('a local copy in the same place as this run looks does not send the user elsewhere', () => {
    const copy = { path: '.uproot/prod/journal.json', journal: journal(DOWNSTREAM) };
    expect(resumeRefusal(input({ autoResume: true, localCopies: [copy] }))).toBeUndefined();
    const error = resumeRefusal(input({ resume: true, localCopies: [copy] }));
    expect(error?.code).toBe('UP-MIGRATE-NOTHING-TO-RESUME');
    expect(error?.message).toContain('the local copy .uproot/prod/journal.json has one');
  });

  it('a downstream copy when this run looks in Rancher: drops the Rancher flags', () => {
    const copy = { path: '.uproot/prod/journal.json', journal: journal(DOWNSTREAM) };
    const error = resumeRefusal(
      input({
        resume: true,
        location: RANCHER,
        flags: { ...FLAGS, rancherContext: 'rancher', cluster: 'prod' },
        localCopies: [copy],
      }),
    );
    expect(error?.code).toBe('UP-MIGRATE-JOURNAL-ELSEWHERE');
    expect(error?.hint).not.toContain('--rancher-context');
    expect(error?.hint).not.toContain('--cluster');
  });

  it('an unfinished journal without --resume is in progress; with --resume it goes on', () => {
    const existing = journal();
    const running: Journal = { ...existing, steps: [{ id: 'install-ccm', state: 'applying' } as never] };
    expect(resumeRefusal(input({ existing: running }))?.code).toBe('UP-MIGRATE-IN-PROGRESS');
    expect(resumeRefusal(input({ existing: running }))?.hint).toContain(
      'uproot migrate --kubeconfig /home/me/.kube/config --context prod --resume',
    );
    expect(resumeRefusal(input({ existing: running, resume: true }))).toBeUndefined();
  });
});

describe('command', () => {
  it('quotes what a shell would split, leaves placeholders readable', () => {
    expect(command('verify', { kubeconfig: '/a b/config', rancherContext: '<rancher-context>' })).toBe(
      "uproot verify --kubeconfig '/a b/config' --rancher-context <rancher-context>",
    );
    expect(migrateCommand({ clusterFile: 'cluster.yml' }, undefined)).toBe(
      'uproot migrate --cluster-file cluster.yml --yes',
    );
  });
});
