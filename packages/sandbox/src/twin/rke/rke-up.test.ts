import { describe, expect, it } from 'vitest';
import { maxUnavailableControlplane } from './rke-up.js';

// rancher/rke cluster/cluster.go CalculateMaxUnavailable: default "1", a number, or a percentage of the
// control-plane hosts rounded down, at least 1.
describe('maxUnavailableControlplane', () => {
  it('is one host at a time unless cluster.yml says otherwise', () => {
    expect(maxUnavailableControlplane('nodes: []\n', 3)).toBe(1);
    expect(maxUnavailableControlplane('upgrade_strategy:\n  max_unavailable_worker: 10%\n', 3)).toBe(1);
  });
  it('takes a number or a percentage rounded down, never less than one', () => {
    expect(maxUnavailableControlplane('upgrade_strategy:\n  max_unavailable_controlplane: 2\n', 3)).toBe(2);
    expect(maxUnavailableControlplane('upgrade_strategy:\n  max_unavailable_controlplane: "70%"\n', 3)).toBe(
      2,
    );
    expect(maxUnavailableControlplane('upgrade_strategy:\n  max_unavailable_controlplane: "10%"\n', 3)).toBe(
      1,
    );
  });
});
