export { loadKubeConfig, describeTarget, kubeAccessError, type KubeTarget } from './kubeconfig.js';
export { listAll, type ListPage } from '../../election/kube-http/index.js';
