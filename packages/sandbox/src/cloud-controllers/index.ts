/**
 * The cloud controllers the simulated managers run, doing real work over HTTP: the Kubernetes API through
 * @kubernetes/client-node and AWS through the SDK v3, with cloud-provider-aws's lookups and messages.
 */
export { runCloudNodeController, initializeNode, applyInstanceMetadata } from './cloud-node.js';
export {
  runCloudNodeLifecycleController,
  monitorNode,
  NODE_MONITOR_PERIOD_MS,
} from './cloud-node-lifecycle.js';
export { runServiceController, ensureLoadBalancer, deleteLoadBalancer } from './service-lb.js';
export { runRouteController, reconcileRoutes } from './route.js';
export { runNodeIpamController } from './node-ipam.js';
export {
  AwsApi,
  AwsCallError,
  awsErrorText,
  type AwsEndpoint,
  type AwsCredentialsSource,
} from './aws-api.js';
export { AwsCloud, CloudError, instanceMetadata, type InstanceMetadata } from './aws-cloud.js';
export { KubeApi, KubeCallError, kubeConfigFor, type KubeEndpoint } from './kube-api.js';
export { EventRecorder, type EventTarget, type RecordedEvent } from './event-recorder.js';
export { ResourceInformer } from './resource-informer.js';
export { createSharedInformers } from './shared-informers.js';
export {
  runPeriodically,
  Backoff,
  ControllerStopped,
  guard,
  type ControllerContext,
  type ControllerAction,
  type CloudControllerSettings,
  type SharedInformers,
} from './controller-context.js';
export { formatProviderId, parseProviderId, instanceIdFromNodeName } from './provider-id.js';
export {
  clusterIdFromTags,
  hasClusterTag,
  NO_CLUSTER_ID_MESSAGE,
  CLUSTER_TAG_PREFIX,
} from './cluster-tags.js';
export {
  defaultLoadBalancerName,
  LB_CLEANUP_FINALIZER,
  LB_TYPE_ANNOTATION,
  targetInstanceIds,
} from './load-balancer-spec.js';
export { UNINITIALIZED_TAINT, SHUTDOWN_TAINT } from './node-helpers.js';
export { PodCidrAllocator } from './pod-cidr.js';
