import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UprootError } from 'uproot';
import { builtinScenarioNames, loadScenario, parseScenario, parseScenarioText } from './load-scenario.js';

function caught(fn: () => unknown): UprootError {
  try {
    fn();
  } catch (error) {
    if (UprootError.is(error)) return error;
    throw error;
  }
  throw new Error('expected an error');
}

describe('built-in scenarios', () => {
  const names = builtinScenarioNames();

  it('ships the scenarios the sandbox documents', () => {
    for (const name of [
      'empty',
      'rke2-intree',
      'rke-intree',
      'kubeadm-intree',
      'short-hostnames',
      'custom-dhcp-domain',
      'missing-cluster-tag',
      'two-tagged-security-groups',
      'iam-gap-control-plane',
      'no-migration-lease-rbac',
      'missing-ebs-csi',
      'chart-selector-mismatch',
    ]) {
      expect(names).toContain(name);
    }
  });

  it.each(names)('%s parses and is named after its file', (name) => {
    const { scenario, builtin } = loadScenario(name);
    expect(builtin).toBe(true);
    expect(scenario.name).toBe(name);
  });

  it('rke2-intree is 3 control-plane and 3 workers on 1.26 in-tree with two LoadBalancer Services', () => {
    const { scenario } = loadScenario('rke2-intree');
    expect(scenario.distribution).toBe('rke2');
    expect(scenario.nodes).toEqual({ controlPlane: 3, etcd: 0, workers: 3 });
    expect(scenario.kubernetesVersion).toMatch(/^v1\.26\./);
    expect(scenario.cloudProvider).toBe('in-tree');
    expect(scenario.workloads.loadBalancerServices).toHaveLength(2);
  });

  it('empty has no nodes', () => {
    const { scenario } = loadScenario('empty');
    expect(scenario.distribution).toBe('none');
    expect(scenario.nodes.controlPlane + scenario.nodes.workers).toBe(0);
  });
});

describe('scenario errors', () => {
  it('names the file, line and field of an unknown field', () => {
    const text = 'name: x\ndescription: d\ndistribution: rke2\nnodes:\n  controlPlane: 3\n  workerz: 2\n';
    const error = caught(() => parseScenarioText(text, 'my.yaml'));
    expect(error.code).toBe('UP-SCENARIO-INVALID');
    expect(error.location).toMatchObject({ file: 'my.yaml', line: 6, field: 'nodes.workerz' });
    expect(error.exitCode).toBe(2);
  });

  it('names the line and value of a wrong value', () => {
    const text = 'name: x\ndescription: d\ndistribution: rke3\n';
    const error = caught(() => parseScenarioText(text, 'my.yaml'));
    expect(error.location).toMatchObject({ file: 'my.yaml', line: 3, field: 'distribution', value: 'rke3' });
  });

  it('locates YAML syntax errors', () => {
    const error = caught(() => parseScenarioText('name: x\n  bad: [\n', 'bad.yaml'));
    expect(error.code).toBe('UP-SCENARIO-YAML');
    expect(error.location?.file).toBe('bad.yaml');
    expect(error.location?.line).toBeGreaterThan(0);
  });

  it('an unknown built-in name lists the built-in ones', () => {
    const error = caught(() => loadScenario('nope'));
    expect(error.code).toBe('UP-SCENARIO-NOT-FOUND');
    expect(error.hint).toContain('rke2-intree');
  });

  it('reads a scenario file relative to cwd', () => {
    const dir = mkdtempSync(join(tmpdir(), 'uproot-scenario-'));
    writeFileSync(join(dir, 'mine.yaml'), 'name: mine\ndescription: d\ndistribution: kubeadm\n');
    const loaded = loadScenario('mine.yaml', { cwd: dir });
    expect(loaded.builtin).toBe(false);
    expect(loaded.scenario.distribution).toBe('kubeadm');
    expect(loaded.scenario.nodes).toEqual({ controlPlane: 3, etcd: 0, workers: 3 });
  });

  it('refuses dedicated etcd nodes outside RKE2 and RKE', () => {
    const error = caught(() =>
      parseScenario({ name: 'x', description: 'd', distribution: 'kubeadm', nodes: { etcd: 3 } }),
    );
    expect(error.location?.field).toBe('nodes.etcd');
    expect(error.message).toContain('only in RKE2 and RKE clusters');
    expect(
      parseScenario({ name: 'x', description: 'd', distribution: 'rke', nodes: { etcd: 3 } }).nodes.etcd,
    ).toBe(3);
  });

  it('validates in-memory scenarios', () => {
    const error = caught(() =>
      parseScenario({ name: 'x', description: 'd', distribution: 'rke2', nodes: { workers: -1 } }),
    );
    expect(error.location?.field).toBe('nodes.workers');
  });
});
