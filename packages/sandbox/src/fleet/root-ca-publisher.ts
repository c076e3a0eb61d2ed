/**
 * kube-root-ca.crt in every namespace of the local cluster, holding the API server's CA, as the root CA
 * publisher does (kubernetes/kubernetes pkg/controller/certificates/rootcacertpublisher/publisher.go): what a
 * pod's projected service-account volume reads ca.crt from.
 */
import { metaOf } from '../twin/kube/kube-types.js';
import { R, type TwinKube } from '../twin/kube/twin-kube.js';

export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';

export function publishRootCa(kube: TwinKube, certificateAuthority: string): () => void {
  const publish = (namespace: string | undefined): void => {
    if (!namespace) return;
    kube.ensure(R.configmaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: ROOT_CA_CONFIGMAP, namespace },
      data: { 'ca.crt': certificateAuthority },
    });
  };
  for (const ns of kube.list(R.namespaces)) publish(metaOf(ns).name);
  return kube.watch(R.namespaces, (e) => {
    // Inside the write that created the namespace: publish after it.
    if (e.type === 'ADDED') queueMicrotask(() => publish(metaOf(e.object).name));
  });
}
