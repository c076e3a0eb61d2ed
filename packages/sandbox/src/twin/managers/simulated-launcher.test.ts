import { describe, expect, it } from 'vitest';
import { tokenOf } from './simulated-launcher.js';

const tokens = { 'kube-controller-manager': 'kcm-token', 'cloud-controller-manager': 'ccm-token' };

describe('tokenOf (which credentials a simulated manager uses)', () => {
  it('a CCM static pod given the KCM’s kubeconfig acts as the KCM (kubeadm, seed 003)', () => {
    expect(
      tokenOf(['--kubeconfig=/etc/kubernetes/controller-manager.conf'], 'cloud-controller-manager', tokens),
    ).toBe('kcm-token');
  });
  it('otherwise each component uses its own identity', () => {
    expect(tokenOf([], 'cloud-controller-manager', tokens)).toBe('ccm-token');
    expect(tokenOf(['--kubeconfig=/etc/ccm.conf'], 'cloud-controller-manager', tokens)).toBe('ccm-token');
    expect(tokenOf([], 'kube-controller-manager', tokens)).toBe('kcm-token');
  });
});
