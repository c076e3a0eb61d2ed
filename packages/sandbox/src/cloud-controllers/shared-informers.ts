import type { KubeConfig, V1Node, V1Service } from '@kubernetes/client-node';
import { listAll } from 'uproot/election';
import type { Clock } from 'uproot';
import type { SharedInformers } from './controller-context.js';
import type { KubeApi } from './kube-api.js';
import { ResourceInformer } from './resource-informer.js';

/**
 * One manager process's informers (its SharedInformerFactory): nodes and services, each listed and watched
 * once however many controllers read them, started on first use and stopped with the process.
 */
export function createSharedInformers(options: {
  readonly kube: KubeApi;
  readonly kubeConfig: KubeConfig;
  readonly clock: Clock;
  readonly onError?: (message: string) => void;
}): SharedInformers & { stop(): void } {
  const { kube, kubeConfig, clock } = options;
  const made: { stop(): void }[] = [];
  let stopped = false;
  const lazily = <T extends V1Node | V1Service>(
    make: () => ResourceInformer<T>,
  ): (() => Promise<ResourceInformer<T>>) => {
    let informer: ResourceInformer<T> | undefined;
    return async () => {
      if (!informer) {
        informer = make();
        made.push(informer);
        if (stopped) informer.stop();
      }
      await informer.start();
      return informer;
    };
  };
  const tracked =
    <T>(page: () => Promise<{ items: T[]; resourceVersion: string | undefined }>) =>
    () =>
      clock.track(page());
  return {
    nodes: lazily(
      () =>
        new ResourceInformer<V1Node>({
          kubeConfig,
          path: '/api/v1/nodes',
          clock,
          list: tracked(() => listAll((p) => kube.core.listNode(p))),
          ...(options.onError ? { onError: options.onError } : {}),
        }),
    ),
    services: lazily(
      () =>
        new ResourceInformer<V1Service>({
          kubeConfig,
          path: '/api/v1/services',
          clock,
          list: tracked(() => listAll((p) => kube.core.listServiceForAllNamespaces(p))),
          ...(options.onError ? { onError: options.onError } : {}),
        }),
    ),
    stop: () => {
      stopped = true;
      for (const i of made) i.stop();
    },
  };
}
