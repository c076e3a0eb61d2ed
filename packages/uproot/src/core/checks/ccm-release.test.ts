import { describe, expect, it } from 'vitest';
import {
  installCcmDaemonSet,
  okValue,
  resultOf,
  snapshotWith,
  type MutableSnapshot,
} from './fixtures/mutable.js';

const install = (m: MutableSnapshot, tag: string, args: string[] = ['--cloud-provider=aws']) =>
  installCcmDaemonSet(m, tag, args);

const kcmArgs = (m: MutableSnapshot, ...args: string[]) =>
  okValue(m.kube.componentPods)
    .filter((p) => p.component === 'kube-controller-manager')
    .forEach((p) => p.args.push(...args));

describe('ccm-release', () => {
  it('passes the release uproot pins when nothing is installed', () => {
    expect(
      resultOf(
        snapshotWith(() => undefined),
        'ccm-release',
      ),
    ).toMatchObject({
      status: 'pass',
      message: 'v1.26.14 (the release uproot pins for Kubernetes 1.26): no known defect for this cluster',
    });
  });

  it('fails an installed CCM before the ENI-ordering fix, with the exact tag to move to', () => {
    const r = resultOf(
      snapshotWith((m) => install(m, 'v1.26.11')),
      'ccm-release',
    );
    expect(r.status).toBe('fail');
    expect(r.message).toContain(
      "DaemonSet kube-system/aws-cloud-controller-manager: v1.26.11 — node addresses not ordered by network-interface device index: on instances with several ENIs, a secondary-ENI or pod IP can become the node's InternalIP; kubectl logs/exec",
    );
    expect(r.message).toContain('kubernetes/cloud-provider-aws#909');
    expect(r.status === 'fail' && r.fixes[0]).toEqual({
      type: 'config',
      description:
        'move DaemonSet kube-system/aws-cloud-controller-manager to v1.26.14, the newest 1.26 release without the defect',
      target: 'DaemonSet kube-system/aws-cloud-controller-manager (and the chart values it came from)',
      snippet: 'image:\n  tag: v1.26.14\n',
      commands: [
        "kubectl -n kube-system set image daemonset/aws-cloud-controller-manager '*=registry.k8s.io/provider-aws/cloud-controller-manager:v1.26.14'",
      ],
    });
    expect(
      resultOf(
        snapshotWith((m) => install(m, 'v1.26.12')),
        'ccm-release',
      ).status,
    ).toBe('pass');
  });

  it('warns where no release of the minor has the fix, naming the minor that does', () => {
    const r = resultOf(
      snapshotWith((m) => install(m, 'v1.25.16')),
      'ccm-release',
    );
    expect(r.status).toBe('warn');
    expect(r.message).toContain('no 1.25 release has the fix');
    expect(r.status === 'warn' && r.fixes[0]?.description).toBe(
      'no 1.25 release fixes it: migrate at Kubernetes 1.26 or later, whose pinned CCM (v1.26.14) has the fix',
    );
  });

  it('fails moving the route controller to a release that cannot list routes (#1351)', () => {
    // The KCM allocates pod CIDRs and configures cloud routes: the route controller moves to the CCM.
    const routes = (m: MutableSnapshot) =>
      kcmArgs(m, '--allocate-node-cidrs=true', '--configure-cloud-routes=true');
    const r = resultOf(snapshotWith(routes), 'ccm-release', { targetVersion: '1.35' });
    expect(r.status).toBe('fail');
    expect(r.message).toContain('v1.35.2 — the route controller cannot list routes');
    expect(r.message).toContain('expected to receive a single instance only, found N');
    expect(r.status === 'fail' && r.fixes[0]).toMatchObject({
      type: 'manual',
      description: expect.stringContaining('#1464 (merged on release-1.35 after v1.35.2)'),
      steps: [
        expect.stringContaining('--target-version 1.33: CCM v1.33.4 runs the route controller'),
        expect.stringContaining('--configure-cloud-routes=false'),
      ],
    });
    // Without cloud routes the release is fine.
    expect(
      resultOf(
        snapshotWith(() => undefined),
        'ccm-release',
        { targetVersion: '1.35' },
      ).status,
    ).toBe('pass');
    // An installed v1.36.0 running the route controller: move to v1.36.1.
    const installed = resultOf(
      snapshotWith((m) =>
        install(m, 'v1.36.0', [
          '--cloud-provider=aws',
          '--allocate-node-cidrs=true',
          '--cluster-cidr=10.42.0.0/16',
        ]),
      ),
      'ccm-release',
    );
    expect(installed.status === 'fail' && installed.fixes[0]).toMatchObject({
      type: 'config',
      snippet: 'image:\n  tag: v1.36.1\n',
    });
  });

  it('names the manifest to edit for a static-pod CCM', () => {
    const r = resultOf(
      snapshotWith((m) =>
        okValue(m.kube.componentPods).push({
          namespace: 'kube-system',
          name: 'cloud-controller-manager-cp1',
          component: 'cloud-controller-manager',
          image: 'registry.k8s.io/provider-aws/cloud-controller-manager:v1.27.6',
          args: ['--cloud-provider=aws'],
        }),
      ),
      'ccm-release',
    );
    expect(r.status === 'fail' && r.fixes[0]).toMatchObject({
      type: 'config',
      target: expect.stringContaining('/etc/kubernetes/manifests/cloud-controller-manager.yaml'),
      snippet: expect.stringContaining(
        'image: registry.k8s.io/provider-aws/cloud-controller-manager:v1.27.10',
      ),
    });
  });
});
