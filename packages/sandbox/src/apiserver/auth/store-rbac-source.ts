import type { ObjectStore } from '../store/object-store.js';
import type { RbacSource } from './rbac-authorizer.js';

/** RBAC objects read from the store, with a change signal for every write to any of the four kinds. */
export function storeRbacSource(store: ObjectStore): RbacSource {
  const registry = store.registry;
  const types = {
    crb: registry.resolve('rbac.authorization.k8s.io/v1/clusterrolebindings'),
    rb: registry.resolve('rbac.authorization.k8s.io/v1/rolebindings'),
    cr: registry.resolve('rbac.authorization.k8s.io/v1/clusterroles'),
    r: registry.resolve('rbac.authorization.k8s.io/v1/roles'),
  };
  return {
    clusterRoleBindings: () => store.list(types.crb).items,
    roleBindings: (namespace) => store.list(types.rb, { namespace }).items,
    clusterRole: (name) => store.get(types.cr, undefined, name),
    role: (namespace, name) => store.get(types.r, namespace, name),
    onChange(listener) {
      // Store listeners run synchronously inside the commit, so the next request already sees the change.
      const offs = Object.values(types).map((rt) => store.subscribe(() => listener(), { resource: rt }));
      return () => offs.forEach((off) => off());
    },
  };
}
