import { type Clock, seededRandom } from 'uproot';
import { builtinKinds, ObjectStore, rancherCrds, ResourceRegistry } from '../../apiserver/index.js';
import { TwinKube } from '../kube/twin-kube.js';

/**
 * An in-process store with the API server's kinds and default namespaces, for unit tests of the twin's
 * controllers (the same store the twin uses, without the HTTP server).
 */
export function testKube(clock: Clock): TwinKube {
  const registry = new ResourceRegistry();
  for (const t of builtinKinds()) registry.add(t);
  const store = new ObjectStore(registry, { clock, random: seededRandom(7), watchWindow: 10_000 });
  for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease'])
    store.create('v1/namespaces', { metadata: { name } });
  for (const crd of rancherCrds()) store.create('apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  return new TwinKube(store, clock);
}
