import { describe, expect, it } from 'vitest';
import { healthySnapshot } from '../checks/fixtures/healthy-snapshot.js';
import type { PreflightSnapshot } from '../model/snapshot.js';
import {
  recordSnapshot,
  replayDistribution,
  scenarioName,
  snapshotScenario,
  summarizeSnapshot,
} from './record-snapshot.js';
import { clusterSnapshotSchema } from './snapshot-schema.js';

const TAKEN = '2026-12-01T00:00:00.000Z';
const SOURCE = { context: 'prod-east' };

describe('recordSnapshot', () => {
  it('records what preflight read, valid against the schema the sandbox reads it with', () => {
    const preflight = healthySnapshot({ clusterId: 'prod' });
    const snapshot = recordSnapshot({ preflight, takenAt: TAKEN, source: SOURCE });
    expect(clusterSnapshotSchema.safeParse(snapshot).success).toBe(true);
    const nodes = preflight.kube.nodes.state === 'ok' ? preflight.kube.nodes.value : [];
    expect(snapshot.kubernetes.nodes.map((n) => n.name)).toEqual(nodes.map((n) => n.name));
    expect(snapshot.kubernetes.nodes.map((n) => n.labels)).toEqual(nodes.map((n) => n.labels));
    expect(snapshot.unavailable).toEqual({});
    expect(snapshot.aws?.instances.length).toBeGreaterThan(0);
  });

  it('takes the cluster id from the instances’ cluster tag before Rancher’s name, and --cluster-id over both', () => {
    const preflight = healthySnapshot({ clusterId: 'prod' });
    expect(
      recordSnapshot({ preflight, takenAt: TAKEN, source: SOURCE, fallbackClusterId: 'c-x1' }).clusterId,
    ).toBe('prod');
    expect(
      recordSnapshot({
        preflight,
        takenAt: TAKEN,
        source: SOURCE,
        clusterId: 'given',
        fallbackClusterId: 'c-x1',
      }).clusterId,
    ).toBe('given');
    const noAws: PreflightSnapshot = {
      ...preflight,
      aws: { state: 'unavailable', reason: 'no credentials' },
    };
    const recorded = recordSnapshot({
      preflight: noAws,
      takenAt: TAKEN,
      source: SOURCE,
      fallbackClusterId: 'c-x1',
    });
    expect(recorded.clusterId).toBe('c-x1');
    // A part that could not be read is named with its reason, not recorded as empty.
    expect(recorded.unavailable).toEqual({ aws: 'no credentials' });
    expect(recorded.aws).toBeUndefined();
  });

  it('names a part of Kubernetes that could not be read', () => {
    const preflight = healthySnapshot();
    const broken: PreflightSnapshot = {
      ...preflight,
      kube: { ...preflight.kube, storageClasses: { state: 'unavailable', reason: 'forbidden' } },
    };
    const snapshot = recordSnapshot({ preflight: broken, takenAt: TAKEN, source: SOURCE });
    expect(snapshot.unavailable).toEqual({ storageClasses: 'forbidden' });
    expect(snapshot.kubernetes.storageClasses).toEqual([]);
    expect(summarizeSnapshot(snapshot, 1234)).toEqual(
      expect.arrayContaining(['  not captured: storageClasses: forbidden', '  size: 1234 bytes']),
    );
  });
});

describe('snapshotScenario and its names', () => {
  const snapshot = recordSnapshot({
    preflight: healthySnapshot({ clusterId: 'Prod_East.1' }),
    takenAt: TAKEN,
    source: SOURCE,
  });

  it('replays RKE2, RKE and kubeadm and refuses what the twin cannot model', () => {
    expect(replayDistribution({ distro: 'rke2' })).toBe('rke2');
    expect(replayDistribution({ distro: 'kubeadm' })).toBe('kubeadm');
    expect(replayDistribution({ distro: 'k3s' } as never)).toBeUndefined();
    const refused = snapshotScenario(snapshot, { distro: 'k3s', kcm: { state: 'ok', value: [] } } as never);
    expect(refused).toEqual({ refused: expect.stringMatching(/looks like k3s/) });
  });

  it('makes an RFC 1123 scenario name of any cluster id', () => {
    expect(scenarioName('Prod_East.1')).toBe('prod-east-1-snapshot');
    expect(scenarioName('***')).toBe('cluster-snapshot');
    expect(scenarioName('a'.repeat(80))).toBe(`${'a'.repeat(50)}-snapshot`);
  });

  it('summarizes the parts it holds', () => {
    const lines = summarizeSnapshot(snapshot, 99);
    expect(lines[0]).toContain(`snapshot of prod-east (cluster id ${snapshot.clusterId})`);
    expect(lines[1]).toMatch(new RegExp(`kubernetes: ${snapshot.kubernetes.nodes.length} nodes`));
    expect(lines.at(-1)).toBe('  size: 99 bytes');
  });
});
