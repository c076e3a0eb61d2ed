/**
 * apiVersion + kind → REST path. The kinds uproot touches are known; anything else (a HelmChart, a CRD the
 * plan applies) is looked up once through discovery (GET /apis/<group>/<version>) and cached.
 */
import { InputError } from '../../errors/index.js';
import type { KubeClient } from './kube-client.js';

export interface ResourceInfo {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly namespaced: boolean;
}

const KNOWN: Readonly<Record<string, { plural: string; namespaced: boolean }>> = {
  'v1/Namespace': { plural: 'namespaces', namespaced: false },
  'v1/Node': { plural: 'nodes', namespaced: false },
  'v1/Pod': { plural: 'pods', namespaced: true },
  'v1/Service': { plural: 'services', namespaced: true },
  'v1/ConfigMap': { plural: 'configmaps', namespaced: true },
  'v1/Secret': { plural: 'secrets', namespaced: true },
  'v1/ServiceAccount': { plural: 'serviceaccounts', namespaced: true },
  'apps/v1/DaemonSet': { plural: 'daemonsets', namespaced: true },
  'apps/v1/Deployment': { plural: 'deployments', namespaced: true },
  'coordination.k8s.io/v1/Lease': { plural: 'leases', namespaced: true },
  'rbac.authorization.k8s.io/v1/Role': { plural: 'roles', namespaced: true },
  'rbac.authorization.k8s.io/v1/RoleBinding': { plural: 'rolebindings', namespaced: true },
  'rbac.authorization.k8s.io/v1/ClusterRole': { plural: 'clusterroles', namespaced: false },
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': { plural: 'clusterrolebindings', namespaced: false },
  'provisioning.cattle.io/v1/Cluster': { plural: 'clusters', namespaced: true },
  'management.cattle.io/v3/Cluster': { plural: 'clusters', namespaced: false },
  'helm.cattle.io/v1/HelmChart': { plural: 'helmcharts', namespaced: true },
  'helm.cattle.io/v1/HelmChartConfig': { plural: 'helmchartconfigs', namespaced: true },
};

export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

export function groupVersionPath(group: string, version: string): string {
  return group ? `/apis/${group}/${version}` : `/api/${version}`;
}

/** The REST path of a collection (name undefined) or an object, with an optional subresource. */
export function resourcePath(
  info: ResourceInfo,
  namespace?: string,
  name?: string,
  subresource?: string,
): string {
  const ns = info.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  const obj = name === undefined ? '' : `/${encodeURIComponent(name).replace(/%3A/g, ':')}`;
  return `${groupVersionPath(info.group, info.version)}${ns}/${info.plural}${obj}${subresource ? `/${subresource}` : ''}`;
}

export class ResourceResolver {
  private readonly cache = new Map<string, Promise<ResourceInfo>>();

  constructor(private readonly client: KubeClient) {}

  resolve(apiVersion: string, kind: string): Promise<ResourceInfo> {
    const key = `${apiVersion}/${kind}`;
    const known = KNOWN[key];
    const { group, version } = splitApiVersion(apiVersion);
    if (known) return Promise.resolve({ group, version, ...known });
    let found = this.cache.get(key);
    if (!found) {
      found = this.discover(group, version, kind, apiVersion);
      this.cache.set(key, found);
      found.catch(() => this.cache.delete(key));
    }
    return found;
  }

  private async discover(
    group: string,
    version: string,
    kind: string,
    apiVersion: string,
  ): Promise<ResourceInfo> {
    const list = await this.client.request<{
      resources?: { name: string; kind: string; namespaced: boolean }[];
    }>({
      method: 'GET',
      path: groupVersionPath(group, version),
    });
    const resource = list.resources?.find((r) => r.kind === kind && !r.name.includes('/'));
    if (!resource) {
      throw new InputError('UP-KUBE-UNKNOWN-KIND', `the API server does not serve ${kind} in ${apiVersion}`, {
        location: { field: 'kind', value: kind },
        hint: 'install the CRD that defines it first, or check the apiVersion',
      });
    }
    return { group, version, plural: resource.name, namespaced: resource.namespaced };
  }
}
