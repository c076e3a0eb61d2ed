import { describe, expect, it } from 'vitest';
import { parseKubernetesVersion } from 'uproot/core';
import { controllerDescriptors, idleUntil } from './controller-descriptors.js';

const settings = (allocate: boolean, routes: boolean) => ({
  clusterName: 'kubernetes',
  clusterCidr: allocate ? '10.42.0.0/16' : undefined,
  nodeCidrMaskSize: 24,
  allocateNodeCidrs: allocate,
  configureCloudRoutes: routes,
});
const names = (d: { name: string; isCloudProviderController?: boolean }[]) =>
  d.map((x) => `${x.name}${x.isCloudProviderController ? '*' : ''}`);
const noRun = async () => undefined;

describe('controller descriptors', () => {
  it('gives a 1.26 KCM the SA-token stand-in and its cloud controllers, flagged as such', () => {
    const d = controllerDescriptors({
      component: 'kube-controller-manager',
      version: parseKubernetesVersion('1.26'),
      settings: settings(false, true),
      run: noRun,
    });
    expect(names(d)).toEqual(['serviceaccount-token', 'service*', 'cloud-node-lifecycle*']);
  });

  it('adds route only with --allocate-node-cidrs and --configure-cloud-routes, nodeipam with the first', () => {
    const v = parseKubernetesVersion('1.28');
    expect(
      names(
        controllerDescriptors({
          component: 'kube-controller-manager',
          version: v,
          settings: settings(true, true),
          run: noRun,
        }),
      ),
    ).toEqual([
      'serviceaccount-token-controller',
      'service-lb-controller*',
      'cloud-node-lifecycle-controller*',
      'node-route-controller*',
      'node-ipam-controller',
    ]);
    expect(
      names(
        controllerDescriptors({
          component: 'cloud-controller-manager',
          version: v,
          settings: settings(true, false),
          run: noRun,
        }),
      ),
    ).toEqual(['cloud-node-controller', 'cloud-node-lifecycle-controller', 'service-lb-controller']);
  });

  it('runs the logical controller under the name the manager keys it by', async () => {
    const seen: string[] = [];
    const d = controllerDescriptors({
      component: 'cloud-controller-manager',
      version: parseKubernetesVersion('1.27'),
      settings: settings(false, false),
      run: async (name, logical) => void seen.push(`${name}=${logical}`),
    });
    for (const x of d) await x.run(new AbortController().signal);
    expect(seen).toEqual([
      'cloud-node=cloud-node',
      'cloud-node-lifecycle=cloud-node-lifecycle',
      'service=service',
    ]);
  });

  it('keeps a stand-in running until its signal aborts', async () => {
    const ac = new AbortController();
    let done = false;
    const p = idleUntil(ac.signal).then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    ac.abort();
    await p;
    expect(done).toBe(true);
  });
});
