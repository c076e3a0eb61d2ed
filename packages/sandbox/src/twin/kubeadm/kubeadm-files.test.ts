import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { InstanceLayout } from '../layout/cluster-layout.js';
import { distroVersion } from '../layout/versions.js';
import { flagsOf } from '../nodes/node-config.js';
import {
  kubeApiserverManifest,
  kubeControllerManagerManifest,
  kubeadmNodeConfig,
  kubeletFlagsEnv,
  parseKubeletFlags,
  parseStaticPodManifest,
} from './kubeadm-files.js';

const version = distroVersion('kubeadm', 'v1.26.15');
const inst = { privateIp: '10.0.0.10', role: 'control-plane' } as InstanceLayout;

describe('kubeadm files', () => {
  it('the KCM manifest kubeadm writes reads back as the in-tree KCM', () => {
    const parsed = parseStaticPodManifest(
      kubeControllerManagerManifest(version, 'aws'),
      'kube-controller-manager.yaml',
    );
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.pod.component).toBe('kube-controller-manager');
    expect(parsed.pod.image).toBe('registry.k8s.io/kube-controller-manager:v1.26.15');
    expect(flagsOf(parsed.pod)).toContain('--cloud-provider=aws');
    expect(flagsOf(parsed.pod)).toContain('--leader-elect=true');
  });

  it('maps hostPath volumes to the container paths that read them', () => {
    const manifest = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'cloud-controller-manager', labels: { component: 'cloud-controller-manager' } },
      spec: {
        containers: [
          {
            name: 'cloud-controller-manager',
            image: 'registry.k8s.io/provider-aws/cloud-controller-manager:v1.26.11',
            command: [
              '/bin/aws-cloud-controller-manager',
              '--leader-migration-config=/etc/leadermigration.conf',
            ],
            volumeMounts: [{ name: 'lm', mountPath: '/etc/leadermigration.conf' }],
          },
        ],
        volumes: [{ name: 'lm', hostPath: { path: '/etc/leadermigration.conf', type: 'FileOrCreate' } }],
      },
    };
    const parsed = parseStaticPodManifest(stringify(manifest), 'ccm.yaml');
    expect(parsed).toMatchObject({
      ok: true,
      pod: {
        component: 'cloud-controller-manager',
        volumes: [{ hostPath: '/etc/leadermigration.conf', mountPath: '/etc/leadermigration.conf' }],
      },
    });
  });

  it('an unreadable manifest is reported, not thrown', () => {
    expect(parseStaticPodManifest('kind: Pod\n  bad: [', 'x.yaml')).toMatchObject({ ok: false });
    expect(parseStaticPodManifest('kind: Deployment\n', 'x.yaml')).toMatchObject({ ok: false });
  });

  it('reads the kubelet flags and builds the control-plane node', () => {
    const flags = parseKubeletFlags(kubeletFlagsEnv('aws'));
    expect(flags).toContain('--cloud-provider=aws');
    const apiserver = parseStaticPodManifest(
      kubeApiserverManifest(version, inst, 'aws'),
      'kube-apiserver.yaml',
    );
    if (!apiserver.ok) throw new Error(apiserver.error);
    const config = kubeadmNodeConfig({
      instance: inst,
      kubeletVersion: version.kubelet,
      kubeletFlags: flags,
      staticPods: [apiserver.pod],
    });
    expect(config.kubelet.cloudProvider).toBe('aws');
    expect(config.labels).toEqual({
      'node-role.kubernetes.io/control-plane': '',
      'node.kubernetes.io/exclude-from-external-load-balancers': '',
    });
    expect(config.taints).toEqual([{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }]);
    expect(
      parseKubeletFlags('KUBELET_KUBEADM_ARGS="--hostname-override ip-1 --cloud-provider=external"'),
    ).toEqual(['--hostname-override', 'ip-1', '--cloud-provider=external']);
  });
});
