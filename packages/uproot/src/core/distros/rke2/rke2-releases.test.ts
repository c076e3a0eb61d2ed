import { describe, expect, it } from 'vitest';
import { parseKubernetesVersion } from '../../model/kubernetes-version.js';
import {
  rke2ApiserverGetsCloudProvider,
  rke2ComponentProvider,
  rke2RunsBuiltInCloudController,
} from './rke2-releases.js';

const v = (raw: string) => parseKubernetesVersion(raw);

describe('RKE2 releases and the cloud provider', () => {
  it('cloud-provider-name aws is the in-tree provider until rancher/rke2#7336', () => {
    const aws = (raw: string) => rke2ComponentProvider('aws', v(raw));
    expect(
      ['v1.26.15+rke2r1', 'v1.28.15+rke2r1', 'v1.29.10+rke2r1', 'v1.30.6+rke2r1', 'v1.31.2+rke2r1'].map(aws),
    ).toEqual(['aws', 'aws', 'aws', 'aws', 'aws']);
    expect(
      ['v1.29.11+rke2r1', 'v1.30.7+rke2r1', 'v1.31.3+rke2r1', 'v1.32.0+rke2r1', 'v1.36.0+rke2r1'].map(aws),
    ).toEqual(['', '', '', '', '']);
    expect(rke2ComponentProvider('external', v('v1.33.1+rke2r1'))).toBe('external');
  });

  it('passes --cloud-provider to the apiserver up to v1.32', () => {
    expect(rke2ApiserverGetsCloudProvider(v('v1.32.9+rke2r1'))).toBe(true);
    expect(rke2ApiserverGetsCloudProvider(v('v1.33.0+rke2r1'))).toBe(false);
  });

  it('runs the built-in cloud controller per rancher/rke2#10351', () => {
    const runs = (raw: string, name: string, disable = false, config = '') =>
      rke2RunsBuiltInCloudController(v(raw), {
        cloudProviderName: name,
        cloudProviderConfig: config,
        disableCloudController: disable,
      });
    expect(runs('v1.35.3+rke2r1', '')).toBe(true);
    expect(runs('v1.35.3+rke2r1', 'external')).toBe(false);
    expect(runs('v1.35.3+rke2r1', '', false, '/etc/cloud.conf')).toBe(false);
    expect(runs('v1.36.0+rke2r1', 'external')).toBe(true);
    expect(runs('v1.36.0+rke2r1', 'aws')).toBe(true);
    expect(runs('v1.36.0+rke2r1', 'rancher-vsphere')).toBe(false);
    expect(runs('v1.36.0+rke2r1', 'ovirt')).toBe(true); // CSI only: the built-in CPI stays
    expect(runs('v1.36.0+rke2r1', 'external', true)).toBe(false);
  });
});
