/**
 * The kubeconfig Rancher keeps for a downstream cluster: Secret `<cluster>-kubeconfig` beside the provisioning
 * Cluster, owned by it, labelled `cluster.x-k8s.io/cluster-name`, with the kubeconfig under `value` (cluster
 * "cluster", user "user", context "default") and the token under `token` (rancher/rancher
 * pkg/provisioningv2/kubeconfig/manager.go getKubeConfigData). Rancher's kubeconfig points at its own proxy
 * (`<server-url>/k8s/clusters/<c-m-id>`) with a Rancher token; the twin's points at the downstream API server
 * directly with a token of its own for the cluster owner (the proxy and the agent tunnel are not modelled).
 */
import { renderKubeconfig, type Identity, type KubeApiServer } from '../../apiserver/index.js';
import { metaOf, type KubeObject } from '../kube/kube-types.js';
import { R, type TwinKube } from '../kube/twin-kube.js';

export function kubeconfigSecretName(clusterName: string): string {
  return `${clusterName}-kubeconfig`;
}

export function writeKubeconfigSecret(options: {
  readonly management: TwinKube;
  readonly cluster: KubeObject;
  readonly downstream: KubeApiServer;
  readonly owner: Identity;
}): void {
  const meta = metaOf(options.cluster);
  const name = meta.name ?? '';
  const entry = options.downstream.kubeconfigEntry(
    { ...options.owner, name: 'user' },
    { clusterName: 'cluster', contextName: 'default' },
  );
  const kubeconfig = renderKubeconfig([entry], 'default');
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  options.management.ensure(R.secrets, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: kubeconfigSecretName(name),
      namespace: meta.namespace,
      labels: { 'cluster.x-k8s.io/cluster-name': name },
      ownerReferences: [
        { apiVersion: 'provisioning.cattle.io/v1', kind: 'Cluster', name, uid: meta.uid ?? '' },
      ],
    },
    type: 'Opaque',
    data: { value: b64(kubeconfig), token: b64(options.owner.token) },
  });
}
