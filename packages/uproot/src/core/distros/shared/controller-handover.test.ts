import { describe, expect, it } from 'vitest';
import { ccmRelease } from '../../ccm/index.js';
import { codeOf } from './test-support/examples.js';
import { kcmCloudFlags, planControllerHandover, type PlannedCcm } from './controller-handover.js';

const at = (minor: number, patch: number, where = 'after the switch'): PlannedCcm => ({
  release: ccmRelease(minor, patch),
  where,
});

describe('controller handover: route and nodeipam', () => {
  it('reads kube-controller-manager defaults: configure-cloud-routes true, allocate-node-cidrs false', () => {
    expect(kcmCloudFlags([], [], 'x')).toMatchObject({
      allocateNodeCidrs: false,
      configureCloudRoutes: true,
    });
    // A kubeadm KCM with a pod subnet: route runs in-tree today (the flag defaults to true).
    const kubeadm = kcmCloudFlags(['--allocate-node-cidrs=true', '--cluster-cidr=10.244.0.0/16'], [], 'x');
    const handover = planControllerHandover({ kcm: kubeadm, ccms: [at(26, 14)], withNodeIpam: false });
    expect(handover.runsRoute).toBe(true);
    expect(handover.ccmArgs).toEqual([
      '--allocate-node-cidrs=true',
      '--cluster-cidr=10.244.0.0/16',
      '--configure-cloud-routes=true',
    ]);
    // The user's arguments override the distribution's defaults.
    expect(
      kcmCloudFlags(
        ['--configure-cloud-routes=true'],
        ['--allocate-node-cidrs=true', '--configure-cloud-routes=false'],
        'x',
      ),
    ).toMatchObject({ allocateNodeCidrs: true, configureCloudRoutes: true });
  });

  it('never moves route to a release whose route controller cannot list routes (#1351)', () => {
    const kcm = kcmCloudFlags(['--allocate-node-cidrs=true', '--cluster-cidr=10.0.0.0/8'], [], 'x');
    const refuse = (ccms: PlannedCcm[]) => () => planControllerHandover({ kcm, ccms, withNodeIpam: false });
    expect(codeOf(refuse([at(33, 4), at(34, 3, 'at upgrade-kubernetes-1.34')]))).toBe(
      'UP-PLAN-ROUTE-CCM-RELEASE',
    );
    try {
      refuse([at(36, 0)])();
    } catch (error) {
      expect((error as { hint?: string }).hint).toMatch(/--ccm-image-tag v1\.36\.1/);
    }
    try {
      refuse([at(35, 2)])();
    } catch (error) {
      expect((error as Error).message).toMatch(/v1\.35\.2 \(after the switch\)/);
      expect((error as { hint?: string }).hint).toMatch(/#1464.*stop the journey before 1\.35/);
    }
    // Without cloud routes the same releases are fine: route does not move.
    const noRoutes = kcmCloudFlags(['--allocate-node-cidrs=true', '--configure-cloud-routes=false'], [], 'x');
    expect(planControllerHandover({ kcm: noRoutes, ccms: [at(35, 2)], withNodeIpam: false }).ccmArgs).toEqual(
      ['--configure-cloud-routes=false'],
    );
  });

  it('refuses --with-nodeipam on every aws CCM release, and states nodeipam stays in the KCM', () => {
    const kcm = kcmCloudFlags(['--allocate-node-cidrs=true'], [], 'x');
    expect(codeOf(() => planControllerHandover({ kcm, ccms: [at(27, 10)], withNodeIpam: true }))).toBe(
      'UP-PLAN-NODEIPAM-CCM',
    );
    const noIpam = planControllerHandover({
      kcm: kcmCloudFlags([], [], 'x'),
      ccms: [at(27, 10)],
      withNodeIpam: false,
    });
    expect(noIpam.findings.map((f) => f.message.split(':')[0])).toEqual([
      'route runs in neither manager, before or after the switch',
      'nodeipam runs in neither manager',
    ]);
  });
});
