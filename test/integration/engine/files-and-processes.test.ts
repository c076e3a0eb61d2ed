import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RealClock } from '../../../packages/uproot/src/clock/index.js';
import type { Change } from '../../../packages/uproot/src/core/model/plan-types.js';
import { localFiles } from '../../../packages/uproot/src/adapters/files/backed-up-write.js';
import { ProcessRunner } from '../../../packages/uproot/src/adapters/process/run-command.js';
import { parseCommandTemplate } from '../../../packages/uproot/src/engine/appliers/command-template.js';
import { fileDefinitionApplier } from '../../../packages/uproot/src/engine/appliers/definition-file.js';
import { nodeFileApplier } from '../../../packages/uproot/src/engine/appliers/node-files.js';
import { manualApplier } from '../../../packages/uproot/src/engine/appliers/manual.js';
import { beginApply, recordChange } from '../../../packages/uproot/src/engine/journal/journal-transitions.js';
import { journalFor, plan, step } from '../../../packages/uproot/src/engine/testing/plan-fixtures.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'uproot-files-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const clock = new RealClock();
const runner = new ProcessRunner(clock);

/** A stand-in `rke`: records its argv and working directory, fails when FAIL_RKE exists. */
function fakeRke(): string {
  const path = join(dir, 'rke');
  writeFileSync(
    path,
    `#!/usr/bin/env node
const fs = require('node:fs');
fs.appendFileSync(${JSON.stringify(join(dir, 'rke.log'))}, JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd() }) + '\\n');
if (fs.existsSync(${JSON.stringify(join(dir, 'FAIL_RKE'))})) { console.error('FATA[0003] Failed to upgrade: token=abc123secret'); process.exit(1); }
console.log('INFO[0010] Finished building Kubernetes cluster successfully');
`,
  );
  chmodSync(path, 0o755);
  return path;
}

/** The file-definition applier as migrate wires it for RKE (the rollout command from rkeFacts), on the fake rke. */
function rkeFileApplier() {
  return fileDefinitionApplier({
    cwd: dir,
    clock,
    files: localFiles,
    runner,
    rollout: { binary: fakeRke(), args: ['up', '--config', '{file}'] },
    timeoutMs: 30_000,
  });
}

const CLUSTER_YML = `# payments cluster, managed by rke
cluster_name: payments
cloud_provider:
  name: aws # in-tree, for now
services:
  kube-controller:
    extra_args:
      v: "2"
nodes:
  - address: 10.0.0.1 # first control plane
    role: [controlplane, etcd]
`;

describe('RKE: cluster.yml and rke up', () => {
  const change = (file: string): Change => ({
    type: 'edit-cluster-definition',
    description: 'enable leader migration in kube-controller extra_args',
    target: { file },
    patch: [
      { op: 'add', path: '/services/kube-controller/extra_args/enable-leader-migration', value: 'true' },
    ],
    diff: '',
  });

  it('edits the file keeping comments, keeps the previous version as .bak, runs rke up, and undoes it', async () => {
    const file = join(dir, 'cluster.yml');
    writeFileSync(file, CLUSTER_YML);
    const c = change('cluster.yml');
    const s = step('enable-leader-migration', [c]);
    const ctx = { step: s, index: 0, journal: journalFor(plan([s], 'rke')) };
    const applier = rkeFileApplier();
    const backup = await applier.capture(c as never, ctx);
    const outcome = await applier.apply(c as never, backup, ctx);

    const text = readFileSync(file, 'utf8');
    expect(text).toContain('# payments cluster, managed by rke');
    expect(text).toContain('name: aws # in-tree, for now');
    expect(text).toMatch(/enable-leader-migration: "?true"?/);
    const baks = readdirSync(dir).filter((f) =>
      /^cluster\.yml\.uproot-enable-leader-migration-\d{8}T\d{6}Z\.bak$/.test(f),
    );
    expect(baks).toHaveLength(1);
    expect(readFileSync(join(dir, baks[0]!), 'utf8')).toBe(CLUSTER_YML);
    const log = readFileSync(join(dir, 'rke.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { argv: string[]; cwd: string });
    expect(log).toEqual([{ argv: ['up', '--config', 'cluster.yml'], cwd: dir }]);
    expect(outcome).toMatchObject({
      type: 'done',
      record: {
        outcome: 'changed',
        fields: [{ path: ['services', 'kube-controller', 'extra_args', 'enable-leader-migration'] }],
      },
    });

    // Re-applying writes nothing new but runs rke up again (declarative, safe after a crash).
    await applier.apply(c as never, backup, ctx);
    expect(readdirSync(dir).filter((f) => f.endsWith('.bak'))).toHaveLength(1);

    const record = outcome.type === 'done' ? { ...outcome.record, change: 0, at: '' } : undefined;
    const undone = await applier.undo(c as never, backup, { ...ctx, record, force: false });
    expect(undone.type).toBe('undone');
    expect(readFileSync(file, 'utf8')).toBe(CLUSTER_YML);
  });

  it('merges the undo into a file edited since, and refuses a conflicting edit', async () => {
    const file = join(dir, 'cluster.yml');
    writeFileSync(file, CLUSTER_YML);
    const c: Change = {
      ...(change('cluster.yml') as Extract<Change, { type: 'edit-cluster-definition' }>),
      patch: [{ op: 'replace', path: '/cloud_provider/name', value: 'external-aws' }],
    };
    const s = step('switch-to-external', [c]);
    const ctx = { step: s, index: 0, journal: journalFor(plan([s], 'rke')) };
    const applier = rkeFileApplier();
    const backup = await applier.capture(c as never, ctx);
    const outcome = await applier.apply(c as never, backup, ctx);
    const record = outcome.type === 'done' ? { ...outcome.record, change: 0, at: '' } : undefined;

    writeFileSync(file, readFileSync(file, 'utf8').replace('v: "2"', 'v: "4" # more logs'));
    expect((await applier.undo(c as never, backup, { ...ctx, record, force: false })).type).toBe('undone');
    const merged = readFileSync(file, 'utf8');
    expect(merged).toContain('name: aws');
    expect(merged).toContain('v: "4" # more logs');

    await applier.apply(c as never, backup, ctx);
    writeFileSync(file, readFileSync(file, 'utf8').replace('external-aws', 'external'));
    const conflict = await applier.undo(c as never, backup, { ...ctx, record, force: false });
    expect(conflict).toMatchObject({
      type: 'conflict',
      conflicts: [
        expect.stringMatching(/cloud_provider.name is "external" now; the step set it to "external-aws"/),
      ],
    });
    expect((await applier.undo(c as never, backup, { ...ctx, record, force: true })).type).toBe('undone');
    expect(readFileSync(file, 'utf8')).toContain('name: aws');
  });

  it('stops with rke up’s output (secrets redacted) when it fails', async () => {
    const file = join(dir, 'cluster.yml');
    writeFileSync(file, CLUSTER_YML);
    writeFileSync(join(dir, 'FAIL_RKE'), '');
    const c = change('cluster.yml');
    const s = step('enable-leader-migration', [c]);
    const ctx = { step: s, index: 0, journal: journalFor(plan([s], 'rke')) };
    const applier = rkeFileApplier();
    const error = await applier
      .apply(c as never, await applier.capture(c as never, ctx), ctx)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UP-RKE-UP-FAILED', exitCode: 1 });
    expect((error as Error).message).toContain('exited with 1');
    expect((error as Error).message).toContain('token=<redacted>');
    expect((error as Error).message).not.toContain('abc123secret');
  });

  it('confirms the plan’s `rke up` instruction once uproot ran rke up for the step', async () => {
    const edit = change('cluster.yml');
    const rkeUp: Change = {
      type: 'manual',
      description: 'roll it out',
      instructions: 'rke up --config cluster.yml   (RKE updates the nodes one by one)',
    };
    const s = step('enable-leader-migration', [edit, rkeUp]);
    let journal = beginApply(journalFor(plan([s], 'rke')), s.id, [], 0);
    const m = manualApplier({
      objectsFor: () => {
        throw new Error('unused');
      },
      confirm: undefined,
      manualDone: new Set(),
    });
    expect((await m.apply(rkeUp as never, undefined, { step: s, index: 1, journal })).type).toBe(
      'needs-person',
    );
    journal = recordChange(
      journal,
      s.id,
      { change: 0, outcome: 'changed', at: '', detail: 'rke up succeeded' },
      0,
    );
    expect(await m.apply(rkeUp as never, undefined, { step: s, index: 1, journal })).toMatchObject({
      type: 'done',
      record: { outcome: 'confirmed' },
    });
  });
});

describe('kubeadm: node files', () => {
  const write: Change = {
    type: 'write-file',
    description: 'KCM manifest',
    path: '/etc/kubernetes/manifests/kube-controller-manager.yaml',
    content: 'kind: Pod\n',
    diff: '',
  };
  const s = step('enable-leader-migration', [write]);
  const ctx = { step: s, index: 0, journal: journalFor(plan([s])) };

  it('runs the per-node command with the content on stdin, once per control-plane node', async () => {
    const fakeSsh = join(dir, 'fake-ssh');
    writeFileSync(
      fakeSsh,
      `#!/bin/sh\nmkdir -p "${dir}/nodes/$1$(dirname "$2")" && cat > "${dir}/nodes/$1$2"\n`,
    );
    chmodSync(fakeSsh, 0o755);
    const applier = nodeFileApplier({
      controlPlaneNodes: async () => ['cp-1', 'cp-2'],
      nodeCommand: parseCommandTemplate(`${fakeSsh} {node} {path}`, '--node-command', ['node', 'path']),
      runner,
      files: localFiles,
      timeoutMs: 10_000,
      confirm: undefined,
      manualDone: new Set(),
    });
    expect(await applier.apply(write as never, undefined, ctx)).toMatchObject({
      type: 'done',
      record: { nodes: ['cp-1', 'cp-2'] },
    });
    for (const node of ['cp-1', 'cp-2']) {
      expect(
        readFileSync(
          join(dir, 'nodes', node, 'etc/kubernetes/manifests/kube-controller-manager.yaml'),
          'utf8',
        ),
      ).toBe('kind: Pod\n');
    }
  });

  it('writes DIR/<node>/<path> and waits for the person to distribute them', async () => {
    const out = join(dir, 'out');
    const deps = {
      controlPlaneNodes: async () => ['cp-1'],
      manifestsOut: out,
      runner,
      files: localFiles,
      timeoutMs: 10_000,
      confirm: undefined,
      manualDone: new Set<never>(),
    };
    const first = await nodeFileApplier(deps).apply(write as never, undefined, ctx);
    expect(first).toMatchObject({
      type: 'needs-person',
      instructions: expect.stringContaining('cp-1:/etc/kubernetes/manifests/kube-controller-manager.yaml'),
    });
    expect(existsSync(join(out, 'cp-1', 'etc/kubernetes/manifests/kube-controller-manager.yaml'))).toBe(true);
    const confirmed = await nodeFileApplier({
      ...deps,
      manualDone: new Set(['enable-leader-migration'] as const),
    }).apply(write as never, undefined, ctx);
    expect(confirmed).toMatchObject({ type: 'done', record: { outcome: 'confirmed' } });
  });

  it('names the node when its command fails, and says how to reach nodes when nothing is configured', async () => {
    const applier = nodeFileApplier({
      controlPlaneNodes: async () => ['cp-1'],
      nodeCommand: parseCommandTemplate(
        'sh -c "echo permission denied >&2; exit 255" {node} {path}',
        '--node-command',
        ['node', 'path'],
      ),
      runner,
      files: localFiles,
      timeoutMs: 10_000,
      confirm: undefined,
      manualDone: new Set(),
    });
    await expect(applier.apply(write as never, undefined, ctx)).rejects.toMatchObject({
      code: 'UP-NODE-COMMAND-FAILED',
      message: expect.stringMatching(/on node cp-1: permission denied/),
    });
    const none = nodeFileApplier({
      controlPlaneNodes: async () => ['cp-1'],
      runner,
      files: localFiles,
      timeoutMs: 1,
      confirm: undefined,
      manualDone: new Set(),
    });
    await expect(none.apply(write as never, undefined, ctx)).rejects.toMatchObject({
      code: 'UP-KUBEADM-NO-TRANSPORT',
      exitCode: 2,
    });
  });
});

describe('ProcessRunner', () => {
  it('kills a command at its deadline', async () => {
    const result = await runner.run({
      file: process.execPath,
      args: ['-e', 'setTimeout(() => {}, 60000)'],
      timeoutMs: 300,
    });
    expect(result).toMatchObject({ type: 'killed', reason: 'timeout' });
  });
  it('reports a missing binary without starting', async () => {
    expect(await runner.run({ file: join(dir, 'no-such-rke'), args: [], timeoutMs: 1000 })).toMatchObject({
      type: 'not-started',
    });
  });
});
