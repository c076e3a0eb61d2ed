/**
 * Reads everything preflight judges from the Kubernetes API, read-only: lists paged by 500 (listAll), no
 * per-node requests, and the only POSTs are SubjectAccessReviews (reviews, not writes). A resource the
 * identity may not read becomes `unavailable` with the reason, so the checks that need it skip; only a
 * cluster that cannot be reached at all (or rejects the credentials) is an error.
 */
import {
  AppsV1Api,
  AuthorizationV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  RbacAuthorizationV1Api,
  StorageV1Api,
  VersionApi,
  type KubeConfig,
  type V1Pod,
} from '@kubernetes/client-node';
import type { Clock } from '../../clock/index.js';
import { listAll, makeKeepAliveApiClient, type ListPage } from '../../election/kube-http/index.js';
import {
  CCM_IDENTITY,
  CCM_NAMESPACE,
  isCcmDaemonSet,
  migrationLeaseReviewRequests,
} from '../../core/checks/index.js';
import type {
  AccessReview,
  DaemonSetFacts,
  Identity,
  KubeSnapshot,
  ResourceAttributes,
} from '../../core/model/snapshot.js';
import type { Readable } from '../../core/model/readable.js';
import type { ClusterDefinition } from '../../core/model/cluster-definition.js';
import type { CallCounter } from './request-counter.js';
import { fatalError, isFatal, skipReason } from './kube-read-error.js';
import {
  ImageTally,
  componentPod,
  daemonSetFacts,
  ebsVolume,
  helmChartFacts,
  leaseFacts,
  loadBalancerService,
  nodeFacts,
  roleBindingFacts,
  roleFacts,
  storageClassFacts,
} from './kube-facts.js';

export interface ClusterSnapshotOptions {
  readonly counter?: CallCounter;
  /** Stamps `readAt` (lease freshness is judged against it). */
  readonly clock?: Pick<Clock, 'now'>;
  /** Page size for lists (default 500, as kubectl). */
  readonly pageSize?: number;
  /** Called as each part is read, for a progress display. */
  readonly onProgress?: (step: string) => void;
  /** The distribution's definition, already read (--cluster-file or Rancher). */
  readonly clusterDefinition?: Readable<ClusterDefinition>;
}

const KUBE_SYSTEM = 'kube-system';
const COMPONENTS =
  'component in (kube-controller-manager,kube-apiserver,kube-scheduler,cloud-controller-manager)';

export async function readClusterSnapshot(
  kc: KubeConfig,
  options: ClusterSnapshotOptions = {},
): Promise<KubeSnapshot> {
  const progress = options.onProgress ?? (() => undefined);
  const reader = new SnapshotReader(kc, options);
  // The one request whose failure ends the run: nothing else is worth trying if this cannot be reached.
  progress('server version');
  const gitVersion = await reader.serverVersion();
  const readAt = new Date(options.clock?.now() ?? Date.now()).toISOString();

  progress('nodes, pods, leases, RBAC, workloads, storage');
  const { core, coordination, rbac, apps, storage } = reader;
  const [
    nodes,
    componentPods,
    leases,
    roles,
    roleBindings,
    daemonSets,
    helmCharts,
    services,
    pvs,
    storageClasses,
    csiDrivers,
    images,
    reviews,
  ] = await Promise.all([
    reader.list('list nodes', (a) => core.listNode(a), nodeFacts),
    reader.list(
      'list pods (kube-system components)',
      (a) => core.listNamespacedPod({ namespace: KUBE_SYSTEM, labelSelector: COMPONENTS, ...a }),
      componentPod,
    ),
    reader.list(
      'list leases',
      (a) => coordination.listNamespacedLease({ namespace: KUBE_SYSTEM, ...a }),
      leaseFacts,
    ),
    reader.list('list roles', (a) => rbac.listNamespacedRole({ namespace: KUBE_SYSTEM, ...a }), roleFacts),
    reader.list(
      'list rolebindings',
      (a) => rbac.listNamespacedRoleBinding({ namespace: KUBE_SYSTEM, ...a }),
      roleBindingFacts,
    ),
    reader.list('list daemonsets', (a) => apps.listDaemonSetForAllNamespaces(a), daemonSetFacts),
    reader.helmCharts(),
    reader.list('list services', (a) => core.listServiceForAllNamespaces(a), loadBalancerService),
    reader.list('list persistentvolumes', (a) => core.listPersistentVolume(a), ebsVolume),
    reader.list('list storageclasses', (a) => storage.listStorageClass(a), storageClassFacts),
    reader.list(
      'list csidrivers',
      (a) => storage.listCSIDriver(a),
      (d) => d.metadata?.name,
    ),
    reader.images(),
    reader.review(migrationLeaseReviewRequests()),
  ]);

  const leaseRbac: KubeSnapshot['leaseRbac'] =
    reviews.state === 'ok'
      ? { state: 'ok', value: { reviews: reviews.value, roles, roleBindings } }
      : reviews;
  progress('CCM access');
  const ccmAccess = await reader.ccmAccess(daemonSets);
  return {
    readAt,
    server: gitVersion
      ? { state: 'ok', value: { gitVersion } }
      : { state: 'unavailable', reason: 'the API server did not report its version' },
    nodes,
    componentPods,
    leases,
    leaseRbac,
    daemonSets,
    helmCharts,
    ccmAccess,
    loadBalancerServices: services,
    persistentVolumes: pvs,
    storageClasses,
    csiDrivers,
    images,
    ...(options.clusterDefinition ? { clusterDefinition: options.clusterDefinition } : {}),
  };
}

/** One cluster's API clients, each request counted, each part read into the snapshot's facts. */
class SnapshotReader {
  readonly core: CoreV1Api;
  readonly apps: AppsV1Api;
  readonly rbac: RbacAuthorizationV1Api;
  readonly storage: StorageV1Api;
  readonly coordination: CoordinationV1Api;
  private readonly custom: CustomObjectsApi;
  private readonly authz: AuthorizationV1Api;
  private readonly counter: CallCounter;
  private readonly pageSize: number;

  constructor(
    private readonly kc: KubeConfig,
    options: ClusterSnapshotOptions,
  ) {
    this.counter = options.counter ?? { count: () => undefined };
    this.pageSize = options.pageSize ?? 500;
    this.core = makeKeepAliveApiClient(kc, CoreV1Api);
    this.apps = makeKeepAliveApiClient(kc, AppsV1Api);
    this.rbac = makeKeepAliveApiClient(kc, RbacAuthorizationV1Api);
    this.storage = makeKeepAliveApiClient(kc, StorageV1Api);
    this.coordination = makeKeepAliveApiClient(kc, CoordinationV1Api);
    this.custom = makeKeepAliveApiClient(kc, CustomObjectsApi);
    this.authz = makeKeepAliveApiClient(kc, AuthorizationV1Api);
  }

  /** The server's gitVersion ('' when it did not say); a cluster that cannot be reached at all throws. */
  async serverVersion(): Promise<string> {
    try {
      this.counter.count('get version');
      return (await makeKeepAliveApiClient(this.kc, VersionApi).getCode()).gitVersion;
    } catch (error) {
      if (isFatal(error)) throw fatalError(error, 'reading the cluster version');
      return '';
    }
  }

  /** Lists every page of a collection, counting each request, mapping items as they arrive. */
  async list<T, R>(
    call: string,
    fetch: (args: { limit: number; _continue?: string }) => Promise<ListPage<T>>,
    map: (item: T) => R | undefined,
  ): Promise<Readable<R[]>> {
    try {
      const { items } = await listAll((args) => {
        this.counter.count(call);
        return fetch(args);
      }, this.pageSize);
      return { state: 'ok', value: items.map(map).filter((x): x is R => x !== undefined) };
    } catch (error) {
      const [verb, ...rest] = call.split(' ');
      return { state: 'unavailable', reason: skipReason(error, verb ?? 'list', rest.join(' ')) };
    }
  }

  async helmCharts(): Promise<KubeSnapshot['helmCharts']> {
    const charts = await this.list(
      'list helmcharts',
      (a) =>
        this.custom.listNamespacedCustomObject({
          group: 'helm.cattle.io',
          version: 'v1',
          namespace: KUBE_SYSTEM,
          plural: 'helmcharts',
          ...a,
        }) as Promise<ListPage<unknown>>,
      helmChartFacts,
    );
    // No HelmChart CRD (not RKE2/K3s): there are simply no HelmCharts.
    return charts.state === 'unavailable' && charts.reason.startsWith('not found')
      ? { state: 'ok', value: [] }
      : charts;
  }

  async images(): Promise<KubeSnapshot['images']> {
    const tally = new ImageTally();
    let cont: string | undefined;
    try {
      do {
        this.counter.count('list pods');
        const page = await this.core.listPodForAllNamespaces({
          limit: this.pageSize,
          fieldSelector: 'status.phase!=Succeeded,status.phase!=Failed',
          ...(cont ? { _continue: cont } : {}),
        });
        for (const p of page.items as V1Pod[]) tally.add(p);
        cont = page.metadata?._continue || undefined;
      } while (cont);
      return { state: 'ok', value: tally.result() };
    } catch (error) {
      return { state: 'unavailable', reason: skipReason(error, 'list', 'pods') };
    }
  }

  async review(
    requests: readonly { identity: Identity; attributes: ResourceAttributes }[],
  ): Promise<Readable<AccessReview[]>> {
    try {
      const out = await Promise.all(
        requests.map(async ({ identity, attributes }): Promise<AccessReview> => {
          this.counter.count('create subjectaccessreviews');
          const answer = await this.authz.createSubjectAccessReview({
            body: {
              apiVersion: 'authorization.k8s.io/v1',
              kind: 'SubjectAccessReview',
              spec: {
                user: identity.user,
                groups: [...identity.groups],
                resourceAttributes: { ...attributes },
              },
            },
          });
          const reason = answer.status?.reason;
          return {
            identity,
            attributes,
            allowed: answer.status?.allowed === true,
            ...(reason ? { reason } : {}),
          };
        }),
      );
      return { state: 'ok', value: out };
    } catch (error) {
      return { state: 'unavailable', reason: skipReason(error, 'create', 'subjectaccessreviews') };
    }
  }

  async ccmAccess(ds: Readable<DaemonSetFacts[]>): Promise<KubeSnapshot['ccmAccess']> {
    if (ds.state !== 'ok' || !ds.value.some(isCcmDaemonSet)) return { state: 'ok', value: [] };
    return this.review([
      {
        identity: CCM_IDENTITY,
        attributes: { namespace: CCM_NAMESPACE, verb: 'get', group: '', resource: 'serviceaccounts' },
      },
    ]);
  }
}
