/**
 * The sandbox Kubernetes API server: an in-process, loopback-only emulator that real kubectl 1.32 and
 * @kubernetes/client-node accept unchanged.
 */
export {
  startKubeApiServer,
  type KubeApiServer,
  type KubeApiServerOptions,
  type VersionSpec,
} from './server.js';
export { writeKubeconfig, renderKubeconfig, type KubeconfigEntry } from './kubeconfig.js';
export { DEFAULT_ADMIN, type Identity, type UserInfo } from './auth/identity.js';
export { bootstrapRbac } from './auth/bootstrap-rbac.js';
export { ServiceAccountTokens, DEFAULT_ISSUER, type TokenClaims } from './auth/service-account-tokens.js';
export { forbiddenMessage, RbacAuthorizer, type Decision, type RbacSource } from './auth/rbac-authorizer.js';
export type { RequestAttributes, PolicyRule, Subject } from './auth/rbac-rules.js';
export {
  ObjectStore,
  type ListOptions,
  type ListResult,
  type WriteOptions,
  type UpdateOptions,
  type DeleteOptions,
  type DeleteResult,
  type StoreListener,
  type SubscribeFilter,
} from './store/object-store.js';
export type { StoreEvent, WatchEventType } from './store/event-log.js';
export { ResourceRegistry, type ResourceRef, type GroupInfo } from './registry/resource-registry.js';
export {
  defineResource,
  apiVersionOf,
  ALL_VERBS,
  type GroupVersionResource,
  type ResourceType,
  type Verb,
  type Subresource,
  type FieldGetter,
  type Defaulter,
  type NameRule,
} from './registry/resource-type.js';
export { builtinKinds, fieldAt } from './registry/builtin-kinds.js';
export { rancherCrds } from './registry/rancher-crds.js';
export type { SmpSchema, SmpField } from './patch/patch-schema.js';
export type { PatchType } from './patch/apply-patch.js';
export type { TablePrinter, ColumnDefinition } from './tables/table.js';
export {
  FaultInjector,
  type FaultRule,
  type FaultMatch,
  type FaultAction,
  type FaultHandle,
  type LatencyRule,
  type DropWatchesFilter,
} from './faults/fault-injector.js';
export type { ApiServerStats } from './http/request-stats.js';
export type { VersionInfo } from './http/non-resource.js';
export { parseLabelSelector, labelSelectorFromSpec, type LabelSelector } from './selectors/label-selector.js';
export {
  ApiStatusError,
  type KubeStatus,
  type StatusReason,
  type StatusDetails,
} from './status/api-status-error.js';
export type { KubeObject, KubeObjectMeta, JsonObject } from './kube-object.js';
