import { describe, expect, it } from 'vitest';
import { rke2Planner } from '../distros/rke2/index.js';
import { example } from '../distros/shared/test-support/examples.js';
import { journeyLine } from './journey-text.js';

describe('the plan\u2019s journey line', () => {
  const plan = (targetVersion?: string) =>
    rke2Planner.plan(
      rke2Planner.read([example('rke2-cluster.yaml')]),
      targetVersion ? { targetVersion } : {},
    );

  it('says which version step carries the switch, the CCM of each minor and the 1.33 flags', () => {
    const line = journeyLine(plan('v1.33.5+rke2r1'))!;
    expect(line).toMatch(/^Journey: migrate with the upgrade to v1\.27\.16\+rke2r2, then v1\.28\./);
    expect(line).toContain(
      'The switch to the external provider rides the upgrade to v1.27.16+rke2r2 (switch-to-external)',
    );
    expect(line).toMatch(/moves the CCM to its minor \(v1\.27\.\d+, v1\.28\.\d+, .*v1\.33\.\d+\)/);
    expect(line).toContain("upgrade-kubernetes-1.33 also drops kube-apiserver's --cloud-provider");
    expect(line).toContain('restart no node');
  });

  it('leaves the 1.33 flags out of a journey that stops before 1.33, and says nothing without hops', () => {
    expect(journeyLine(plan('1.32'))).not.toContain('--cloud-provider');
    expect(journeyLine(plan('1.27'))).toBeUndefined();
    expect(journeyLine(plan())).toBeUndefined();
  });
});
