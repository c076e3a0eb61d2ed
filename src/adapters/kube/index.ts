export { loadKubeConfig, describeTarget, kubeAccessError, type KubeTarget } from './kubeconfig.js';
export { listAll, type ListPage } from './list-all.js';
