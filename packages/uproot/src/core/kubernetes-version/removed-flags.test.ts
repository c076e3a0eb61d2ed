import { describe, expect, it } from 'vitest';
import { parseKubernetesVersion } from '../model/kubernetes-version.js';
import { apiserverStartFailure, kcmStartFailure, kubeletStartFailure } from './removed-flags.js';

const v = (raw: string) => parseKubernetesVersion(raw);

describe('kubelet and --cloud-provider', () => {
  it('runs the in-tree provider up to 1.26 and external or none on every version', () => {
    expect(kubeletStartFailure(v('v1.26.15+rke2r1'), ['--cloud-provider=aws'])).toBeUndefined();
    for (const version of ['1.27.16', '1.30.4', '1.33.1', '1.36.0']) {
      expect(kubeletStartFailure(v(version), ['--cloud-provider=external'])).toBeUndefined();
      expect(kubeletStartFailure(v(version), ['--cloud-provider='])).toBeUndefined();
      expect(kubeletStartFailure(v(version), ['--node-ip=10.0.0.1'])).toBeUndefined();
    }
  });

  it('exits with "unknown cloud provider" from 1.27 (rancher/rke2#4183, #6626)', () => {
    for (const version of ['v1.27.16+rke2r1', 'v1.30.4', 'v1.33.1']) {
      expect(kubeletStartFailure(v(version), ['--hostname-override=x', '--cloud-provider=aws'])).toEqual({
        log: '"command failed" err="failed to run Kubelet: unknown cloud provider \\"aws\\""',
        error: 'failed to run Kubelet: unknown cloud provider "aws"',
      });
    }
    // The last value wins, as pflag reads a repeated flag.
    expect(
      kubeletStartFailure(v('1.27.16'), ['--cloud-provider=aws', '--cloud-provider=external']),
    ).toBeUndefined();
  });

  it('refuses in NewMainKubelet from 1.34 (kubernetes/kubernetes#130161)', () => {
    expect(kubeletStartFailure(v('1.34.1'), ['--cloud-provider=aws'])?.error).toBe(
      'failed to run Kubelet: failed to create kubelet: cloud provider "aws" was specified, but built-in cloud providers are disabled. Please set --cloud-provider=external and migrate to an external cloud provider',
    );
  });
});

describe('kube-apiserver and the cloud-provider flags', () => {
  it('accepts --cloud-provider=aws up to 1.28 (it initialises no provider)', () => {
    expect(apiserverStartFailure(v('1.26.15'), ['--cloud-provider=aws'])).toBeUndefined();
    expect(apiserverStartFailure(v('1.27.16'), ['--cloud-provider=aws'])).toBeUndefined();
    expect(apiserverStartFailure(v('1.28.15'), ['--cloud-provider=aws'])).toBeUndefined();
  });

  it('rejects an in-tree name in validateCloudProviderOptions from 1.29 to 1.32', () => {
    for (const version of ['1.29.0', '1.32.4']) {
      expect(apiserverStartFailure(v(version), ['--cloud-provider=aws'])).toEqual({
        log: '"command failed" err="failed to validate cloud provider: unknown --cloud-provider : aws"',
        error: 'failed to validate cloud provider: unknown --cloud-provider : aws',
      });
      expect(apiserverStartFailure(v(version), ['--cloud-provider=external'])).toBeUndefined();
    }
  });

  it('has no --cloud-provider or --cloud-config from 1.33 (kubernetes/kubernetes#130162)', () => {
    expect(apiserverStartFailure(v('1.33.1'), ['--secure-port=6443', '--cloud-provider=external'])).toEqual({
      log: 'Error: unknown flag: --cloud-provider',
      error: 'unknown flag: --cloud-provider',
    });
    expect(
      apiserverStartFailure(v('1.34.0'), ['--cloud-config=/etc/aws.conf', '--cloud-provider=aws']),
    ).toEqual({ log: 'Error: unknown flag: --cloud-config', error: 'unknown flag: --cloud-config' });
    expect(apiserverStartFailure(v('1.33.1'), ['--secure-port=6443'])).toBeUndefined();
  });
});

describe('kube-controller-manager and --cloud-provider', () => {
  it('runs aws up to 1.26 and fails to build its controller context from 1.27', () => {
    expect(kcmStartFailure(v('1.26.15'), ['--cloud-provider=aws'])).toBeUndefined();
    expect(kcmStartFailure(v('1.27.16'), ['--cloud-provider=external'])).toBeUndefined();
    expect(kcmStartFailure(v('1.33.1'), ['--cloud-provider=aws'])).toBe(
      'cloud provider could not be initialized: unknown cloud provider "aws"',
    );
  });
});
