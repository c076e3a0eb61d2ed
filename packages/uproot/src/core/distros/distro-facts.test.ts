import { describe, expect, it } from 'vitest';
import { planClusterFiles } from '../plan/plan-cluster.js';
import { controlPlaneSelectorFor, distroFacts } from './distro-facts.js';
import { example } from './shared/test-support/examples.js';

describe('distribution facts come from the planners', () => {
  it('give each distribution its control-plane selector, manager pods and rollout', () => {
    expect(distroFacts('rke2')).toMatchObject({
      controlPlaneSelector: 'node-role.kubernetes.io/control-plane=true',
      managerPods: { readable: true },
      rollout: { type: 'cluster-object' },
    });
    expect(distroFacts('rke')).toMatchObject({
      controlPlaneSelector: 'node-role.kubernetes.io/controlplane=true',
      managerPods: { readable: false, reason: expect.stringContaining('Docker container') },
      rollout: { type: 'command', command: ['rke', 'up', '--config', '{file}'] },
    });
    expect(distroFacts('kubeadm')).toMatchObject({
      controlPlaneSelector: 'node-role.kubernetes.io/control-plane',
      rollout: { type: 'static-pods' },
    });
  });

  it("take the plan's own cordon selector first", () => {
    for (const file of ['rke2-cluster.yaml', 'rke-cluster.yml', 'kube-controller-manager.yaml']) {
      const { plan } = planClusterFiles([example(file)]);
      const cordon = plan.steps.flatMap((s) => s.changes).find((c) => c.type === 'cordon-nodes');
      expect(controlPlaneSelectorFor(plan)).toBe(
        cordon?.type === 'cordon-nodes' ? cordon.selector : distroFacts(plan.distro).controlPlaneSelector,
      );
      expect(controlPlaneSelectorFor({ ...plan, steps: [] })).toBe(
        distroFacts(plan.distro).controlPlaneSelector,
      );
    }
  });
});
