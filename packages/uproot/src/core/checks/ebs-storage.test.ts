import { describe, expect, it } from 'vitest';
import { okValue, resultOf, snapshotWith, type MutableSnapshot } from './fixtures/mutable.js';

const inTreePv = (m: MutableSnapshot) =>
  okValue(m.kube.persistentVolumes).push({
    name: 'data-0',
    plugin: 'in-tree',
    volumeID: 'vol-0123456789abcdef0',
  });

describe('ebs-storage', () => {
  it('passes without in-tree EBS volumes or classes', () => {
    expect(
      resultOf(
        snapshotWith(() => undefined),
        'ebs-storage',
      ).status,
    ).toBe('pass');
  });

  it('fails in-tree volumes and classes without the EBS CSI driver', () => {
    const s = snapshotWith((m) => {
      inTreePv(m);
      okValue(m.kube.storageClasses).push({
        name: 'gp2',
        provisioner: 'kubernetes.io/aws-ebs',
        isDefault: true,
      });
    });
    const r = resultOf(s, 'ebs-storage');
    expect(r).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('1 PersistentVolume and 1 StorageClass use the in-tree EBS plugin'),
      resources: [
        { kind: 'PersistentVolume', name: 'data-0' },
        { kind: 'StorageClass', name: 'gp2' },
      ],
    });
    expect(r.status === 'fail' && r.fixes.map((f) => f.type)).toEqual(['commands', 'manual']);
  });

  it('passes in-tree classes when the CSI driver is installed (CSIDriver object or its node DaemonSet)', () => {
    const gp2 = (m: MutableSnapshot) =>
      okValue(m.kube.storageClasses).push({
        name: 'gp2',
        provisioner: 'kubernetes.io/aws-ebs',
        isDefault: true,
      });
    const byObject = snapshotWith((m) => {
      gp2(m);
      okValue(m.kube.csiDrivers).push('ebs.csi.aws.com');
    });
    expect(resultOf(byObject, 'ebs-storage').status).toBe('pass');
    const byDaemonSet = snapshotWith((m) => {
      gp2(m);
      okValue(m.kube.daemonSets).push({
        namespace: 'kube-system',
        name: 'ebs-csi-node',
        labels: {},
        containers: [],
        nodeSelector: {},
        tolerations: [],
        hostNetwork: false,
      });
    });
    expect(resultOf(byDaemonSet, 'ebs-storage').status).toBe('pass');
  });

  it('reports in-tree PVs that stay in-tree-shaped after the switch, with the manual rewrite to CSI', () => {
    const s = snapshotWith((m) => {
      okValue(m.kube.persistentVolumes).push({
        name: 'data-0',
        plugin: 'in-tree',
        volumeID: 'aws://us-west-2a/vol-0123456789abcdef0',
        claim: 'shop/data-web-0',
      });
      okValue(m.kube.csiDrivers).push('ebs.csi.aws.com');
    });
    const r = resultOf(s, 'ebs-storage');
    expect(r).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('1 PersistentVolume stay in-tree-shaped (spec.awsElasticBlockStore)'),
    });
    const fix = r.status === 'warn' ? r.fixes[0] : undefined;
    expect(fix?.type).toBe('manual');
    expect(fix?.description).toMatch(
      /downtime for the workload.*docs\/decisions\/0016-intree-pvs-stay-manual\.md/,
    );
    expect(fix?.type === 'manual' && fix.steps).toEqual([
      'kubectl get pv data-0 -o yaml > data-0.yaml; kubectl -n shop get pvc data-web-0 -o yaml > data-web-0.yaml   (backups; keep them)',
      expect.stringMatching(
        /^kubectl patch pv data-0 -p '\{"spec":\{"persistentVolumeReclaimPolicy":"Retain"\}\}'/,
      ),
      expect.stringContaining('shop/data-web-0'),
      'kubectl -n shop delete pvc data-web-0; kubectl delete pv data-0   (the PV is Released first; the EBS volume stays)',
      // csi-translation-lib's mapping: the bare volume id, partition, the CSI zone key.
      expect.stringMatching(
        /spec\.csi \{driver: ebs\.csi\.aws\.com, volumeHandle: vol-0123456789abcdef0 .*partition.*topology\.ebs\.csi\.aws\.com\/zone/,
      ),
      expect.stringContaining('volumeName: data-0'),
      expect.stringContaining('restore the reclaim policy'),
    ]);
  });

  it('warns CSIMigrationAWS=false on the kube-controller-manager', () => {
    const s = snapshotWith((m) => {
      inTreePv(m);
      okValue(m.kube.csiDrivers).push('ebs.csi.aws.com');
      okValue(m.kube.componentPods)[0]!.args.push('--feature-gates=CSIMigrationAWS=false');
    });
    expect(resultOf(s, 'ebs-storage')).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('CSIMigrationAWS=false'),
    });
  });

  it('skips when StorageClasses are forbidden', () => {
    const s = snapshotWith(
      (m) =>
        (m.kube.storageClasses = { state: 'unavailable', reason: 'forbidden: cannot list storageclasses' }),
    );
    expect(resultOf(s, 'ebs-storage')).toMatchObject({
      status: 'skip',
      reason: 'forbidden: cannot list storageclasses',
    });
  });
});
