import { describe, expect, it } from 'vitest';
import { parseManagerFlags, type ManagerFlags } from 'uproot/election';
import { cloudControllerSettings, cloudProviderError, runsCloudControllers } from './manager-settings.js';

function flags(
  component: 'kube-controller-manager' | 'cloud-controller-manager',
  args: string[],
  version = '1.26',
): ManagerFlags {
  const r = parseManagerFlags(args, { component, kubernetesVersion: version });
  if (!r.ok) throw new Error(r.errors.join('; '));
  return r.flags;
}

describe('manager settings', () => {
  it('reads the cloud flags the election parser leaves aside, with upstream defaults', () => {
    expect(cloudControllerSettings(flags('cloud-controller-manager', ['--cloud-provider=aws']))).toEqual({
      settings: {
        clusterName: 'kubernetes',
        clusterCidr: undefined,
        nodeCidrMaskSize: 24,
        allocateNodeCidrs: false,
        configureCloudRoutes: true,
      },
    });
    const f = flags('kube-controller-manager', [
      '--cloud-provider=aws',
      '--allocate-node-cidrs=true',
      '--cluster-cidr=10.42.0.0/16,fd00::/56',
      '--node-cidr-mask-size=25',
      '--cluster-name=prod',
      '--configure-cloud-routes=false',
    ]);
    expect(cloudControllerSettings(f)).toEqual({
      settings: {
        clusterName: 'prod',
        clusterCidr: '10.42.0.0/16',
        nodeCidrMaskSize: 25,
        allocateNodeCidrs: true,
        configureCloudRoutes: false,
      },
    });
  });

  it('rejects bad values as pflag does', () => {
    expect(
      cloudControllerSettings(flags('kube-controller-manager', ['--allocate-node-cidrs=perhaps'])),
    ).toEqual({
      error:
        'invalid argument "perhaps" for "--allocate-node-cidrs" flag: strconv.ParseBool: parsing "perhaps": invalid syntax',
    });
    expect(
      cloudControllerSettings(
        flags('kube-controller-manager', ['--allocate-node-cidrs', '--cluster-cidr=10.42/16']),
      ),
    ).toEqual({
      error: 'invalid CIDR address: 10.42/16',
    });
  });

  it('knows which providers each manager can run', () => {
    expect(cloudProviderError(flags('kube-controller-manager', ['--cloud-provider=aws']))).toBeUndefined();
    expect(
      cloudProviderError(flags('kube-controller-manager', ['--cloud-provider=external'], '1.27')),
    ).toBeUndefined();
    expect(cloudProviderError(flags('kube-controller-manager', ['--cloud-provider=gce']))).toEqual({
      message: 'cloud provider could not be initialized: unknown cloud provider "gce"',
      afterLeading: true,
    });
    expect(cloudProviderError(flags('cloud-controller-manager', ['--cloud-provider=gce']))).toEqual({
      message: 'cloud provider could not be initialized: unknown cloud provider "gce"',
      afterLeading: false,
    });
  });

  it('refuses the in-tree aws provider in a 1.27+ KCM, once it leads (kubernetes#115838)', () => {
    for (const version of ['1.27', '1.30', '1.33']) {
      expect(cloudProviderError(flags('kube-controller-manager', ['--cloud-provider=aws'], version))).toEqual(
        {
          message: 'cloud provider could not be initialized: unknown cloud provider "aws"',
          afterLeading: true,
        },
      );
    }
    // Without leader election the KCM builds its context at once.
    expect(
      cloudProviderError(
        flags('kube-controller-manager', ['--cloud-provider=aws', '--leader-elect=false'], '1.27'),
      )?.afterLeading,
    ).toBe(false);
    expect(
      cloudProviderError(flags('cloud-controller-manager', ['--cloud-provider=aws'], '1.33')),
    ).toBeUndefined();
    expect(runsCloudControllers(flags('kube-controller-manager', ['--cloud-provider=external']))).toBe(false);
    expect(runsCloudControllers(flags('kube-controller-manager', ['--cloud-provider=aws']))).toBe(true);
    expect(runsCloudControllers(flags('cloud-controller-manager', ['--cloud-provider=aws']))).toBe(true);
  });
});
