import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readClusterDefinitionFile, readClusterFiles, readExample } from './cluster-source.js';

const EXAMPLES = new URL('../../../examples/', import.meta.url).pathname;

function dirWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'uproot-cluster-source-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const errorOf = (work: () => unknown): Record<string, unknown> => {
  try {
    work();
  } catch (error) {
    return error as Record<string, unknown>;
  }
  throw new Error('expected an error');
};

describe('one cluster source', () => {
  it('reads a directory the same way for every command: YAML and JSON files in name order, hidden ones skipped', () => {
    const kcm = readFileSync(join(EXAMPLES, 'kube-controller-manager.yaml'), 'utf8');
    const dir = dirWith({
      'kube-controller-manager.yaml': kcm,
      'a.YML': 'kind: Pod\n',
      'b.json': '{}',
      '.kube-controller-manager.yaml.swp': 'junk',
      'README.txt': 'not a manifest',
    });
    const read = readClusterFiles([dir]);
    expect(read.map((f) => f.path)).toEqual([
      join(dir, 'a.YML'),
      join(dir, 'b.json'),
      join(dir, 'kube-controller-manager.yaml'),
    ]);
    // preflight reads the same files and finds the kube-controller-manager among them
    expect(readClusterDefinitionFile(dir)).toMatchObject({ distro: 'kubeadm' });
  });

  it('shows paths as given, relative to the working directory', () => {
    const dir = dirWith({ 'cluster.yml': 'cluster_name: x\n' });
    mkdirSync(join(dir, 'manifests'));
    writeFileSync(join(dir, 'manifests', 'kcm.yaml'), 'kind: Pod\n');
    expect(readClusterFiles(['cluster.yml', 'manifests'], dir).map((f) => f.path)).toEqual([
      'cluster.yml',
      join('manifests', 'kcm.yaml'),
    ]);
  });

  it('has one code per cause: unreadable file, empty directory, unknown example', () => {
    const dir = dirWith({ 'notes.txt': 'x' });
    expect(errorOf(() => readClusterFiles(['missing.yaml'], dir))).toMatchObject({
      code: 'UP-CLUSTER-FILE-UNREADABLE',
      message: 'cannot read missing.yaml: ENOENT',
      exitCode: 2,
    });
    expect(errorOf(() => readClusterDefinitionFile(join(dir, 'missing.yaml')))).toMatchObject({
      code: 'UP-CLUSTER-FILE-UNREADABLE',
    });
    expect(errorOf(() => readClusterFiles([dir]))).toMatchObject({ code: 'UP-CLUSTER-DIR-EMPTY' });
    if (process.getuid?.() !== 0) {
      const locked = join(dir, 'locked.yaml');
      writeFileSync(locked, 'x');
      chmodSync(locked, 0);
      expect(errorOf(() => readClusterFiles([locked]))).toMatchObject({ code: 'UP-CLUSTER-FILE-UNREADABLE' });
    }
    expect(errorOf(() => readExample('rke3'))).toMatchObject({ code: 'UP-PLAN-EXAMPLE' });
    expect(readExample('rke2').path).toBe('examples/rke2-cluster.yaml');
  });
});
