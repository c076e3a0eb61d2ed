import { describe, expect, it } from 'vitest';
import { parseKubernetesVersion } from '../model/kubernetes-version.js';
import {
  CCM_DEFECTS,
  ccmImageTagFor,
  ccmRelease,
  ccmTagMinor,
  ccmTagRelease,
  featureSince,
  firstFixedRelease,
  hasDefect,
  hasFeature,
  isTaggedRelease,
  knownDefects,
  releasesOf,
  routeControllerDefect,
  routeControllerWorks,
} from './index.js';

const v = (s: string) => parseKubernetesVersion(s);
const defect = (id: string) => CCM_DEFECTS.find((d) => d.id === id)!;
const eni = defect('eni-address-order');
const route = defect('route-list-single-instance');

describe('ccmImageTagFor', () => {
  it('pins the newest tagged patch of the minor, never one before the ENI-ordering fix', () => {
    expect(
      Object.fromEntries(
        [21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36].map((m) => [
          m,
          ccmImageTagFor(v(`1.${m}`)),
        ]),
      ),
    ).toEqual({
      21: 'v1.21.7',
      22: 'v1.22.8',
      23: 'v1.23.21',
      24: 'v1.24.20',
      25: 'v1.25.16',
      26: 'v1.26.14',
      27: 'v1.27.10',
      28: 'v1.28.11',
      29: 'v1.29.10',
      30: 'v1.30.10',
      31: 'v1.31.9',
      32: 'v1.32.8',
      33: 'v1.33.4',
      34: 'v1.34.3',
      35: 'v1.35.2',
      36: 'v1.36.1',
    });
    for (const minor of [26, 27, 28, 29, 30]) {
      const pinned = ccmTagRelease(ccmImageTagFor(v(`1.${minor}.0`)))!;
      expect(hasDefect(pinned, eni), `1.${minor}`).toBe(false);
    }
  });

  it('keeps the signature callers use per upgrade hop, and refuses a cluster too old for leader migration', () => {
    expect(ccmTagMinor(ccmImageTagFor(v('v1.26.15+rke2r1')))).toBe(26);
    expect(ccmImageTagFor(v('1.37'))).toBe('v1.37.0');
    expect(() => ccmImageTagFor(v('1.20'))).toThrow(/Kubernetes 1\.20/);
  });
});

describe('known defects', () => {
  it('knows the first release of each minor with the ENI-ordering fix (#909 and its cherry-picks)', () => {
    expect(
      Object.fromEntries([26, 27, 28, 29, 30, 31].map((m) => [m, firstFixedRelease(m, eni)?.raw])),
    ).toEqual({ 26: 'v1.26.12', 27: 'v1.27.7', 28: 'v1.28.6', 29: 'v1.29.3', 30: 'v1.30.1', 31: 'v1.31.0' });
    expect(hasDefect(ccmRelease(26, 11), eni)).toBe(true);
    expect(hasDefect(ccmRelease(26, 12), eni)).toBe(false);
    expect(releasesOf(25).every((r) => hasDefect(r, eni))).toBe(true);
  });

  it('names the exact release to move to, or why there is none', () => {
    expect(knownDefects(ccmRelease(26, 11), { runsRoute: false })).toEqual([
      { defect: eni, fix: ccmRelease(26, 14) },
    ]);
    expect(knownDefects(ccmRelease(25, 16), { runsRoute: false })).toEqual([
      { defect: eni, noFix: 'no 1.25 release has the fix' },
    ]);
    expect(knownDefects(ccmRelease(35, 0), { runsRoute: false })).toEqual([]);
  });

  it('knows which releases cannot run the route controller (#1351; #1388 → v1.36.1; #1464/#1465 untagged)', () => {
    const affected = [34, 35, 36].flatMap((m) =>
      releasesOf(m)
        .filter((r) => !routeControllerWorks(r))
        .map((r) => r.raw),
    );
    expect(affected).toEqual([
      'v1.34.0',
      'v1.34.1',
      'v1.34.2',
      'v1.34.3',
      'v1.35.0',
      'v1.35.1',
      'v1.35.2',
      'v1.36.0',
    ]);
    expect(routeControllerWorks(ccmRelease(33, 4))).toBe(true);
    // The cherry-picks are merged after the newest tags: the next patch carries the fix.
    expect(routeControllerWorks(ccmRelease(35, 3))).toBe(true);
    expect(routeControllerDefect(ccmRelease(36, 0))).toEqual({ defect: route, fix: ccmRelease(36, 1) });
    expect(routeControllerDefect(ccmRelease(35, 2))?.noFix).toMatch(
      /#1464 \(merged on release-1\.35 after v1\.35\.2\)/,
    );
    expect(knownDefects(ccmRelease(34, 1), { runsRoute: false })).toEqual([]);
  });

  it('lists only tagged releases', () => {
    expect(isTaggedRelease(ccmRelease(26, 3))).toBe(false);
    expect(isTaggedRelease(ccmRelease(26, 12))).toBe(true);
  });
});

describe('features by release', () => {
  it('DescribeInstanceTopology from v1.30.4, v1.31.2 and v1.32.0 on', () => {
    expect(featureSince('instance-topology')).toBe('v1.30.4, v1.31.2, v1.32.0');
    expect(hasFeature(ccmRelease(30, 3), 'instance-topology')).toBe(false);
    expect(hasFeature(ccmRelease(30, 4), 'instance-topology')).toBe(true);
    expect(hasFeature(ccmRelease(31, 1), 'instance-topology')).toBe(false);
    expect(hasFeature(ccmRelease(32, 0), 'instance-topology')).toBe(true);
    expect(hasFeature(ccmRelease(29, 10), 'instance-topology')).toBe(false);
    expect(hasFeature(ccmRelease(36, 0), 'refuses-lb-type-change')).toBe(true);
    expect(hasFeature(ccmRelease(35, 2), 'refuses-lb-type-change')).toBe(false);
  });
});
