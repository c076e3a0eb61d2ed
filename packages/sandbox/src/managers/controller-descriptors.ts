import {
  type KubernetesVersion,
  controllerName,
  serviceAccountTokenController,
  type LogicalController,
  type ManagerComponent,
} from 'uproot/core';
import type { ControllerDescriptor } from 'uproot/election';
import { runCloudNodeController } from '../cloud-controllers/cloud-node.js';
import { runCloudNodeLifecycleController } from '../cloud-controllers/cloud-node-lifecycle.js';
import type { CloudControllerSettings, ControllerContext } from '../cloud-controllers/controller-context.js';
import { runNodeIpamController } from '../cloud-controllers/node-ipam.js';
import { runRouteController } from '../cloud-controllers/route.js';
import { runServiceController } from '../cloud-controllers/service-lb.js';

type ControllerRun = (ctx: ControllerContext, signal: AbortSignal) => Promise<void>;

export const CLOUD_CONTROLLER_RUNS: Readonly<Record<LogicalController, ControllerRun>> = {
  'cloud-node': runCloudNodeController,
  'cloud-node-lifecycle': runCloudNodeLifecycleController,
  service: runServiceController,
  route: runRouteController,
  nodeipam: runNodeIpamController,
};

/** The service accounts the controllers act as with --use-service-account-credentials. */
export const CONTROLLER_SERVICE_ACCOUNTS: Readonly<Record<LogicalController, string>> = {
  'cloud-node': 'cloud-node-controller',
  'cloud-node-lifecycle': 'cloud-node-lifecycle-controller',
  service: 'service-controller',
  route: 'route-controller',
  nodeipam: 'node-controller',
};

/** Resolves when `signal` aborts: a stand-in controller that holds its place and does nothing. */
export function idleUntil(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * The controllers a simulated manager offers its runtime, keyed by the names its version uses. KCM: the
 * service-account-token controller (a stand-in for everything else KCM runs; starting it is what opens the
 * migration election), `service`, `cloud-node-lifecycle` and `route` flagged as cloud-provider controllers
 * (skipped with --cloud-provider=external), and `nodeipam`. CCM: `cloud-node`, `cloud-node-lifecycle`,
 * `service`, `route`. `route` exists only with --allocate-node-cidrs and --configure-cloud-routes, `nodeipam`
 * only with --allocate-node-cidrs: upstream does not start them otherwise.
 */
export function controllerDescriptors(args: {
  readonly component: ManagerComponent;
  readonly version: KubernetesVersion;
  readonly settings: CloudControllerSettings;
  readonly run: (name: string, logical: LogicalController, signal: AbortSignal) => Promise<void>;
}): ControllerDescriptor[] {
  const { component, version, settings } = args;
  const cloud = (logical: LogicalController, isCloudProviderController: boolean): ControllerDescriptor => {
    const name = controllerName(logical, version);
    return { name, isCloudProviderController, run: (signal) => args.run(name, logical, signal) };
  };
  const routes = settings.allocateNodeCidrs && settings.configureCloudRoutes;
  if (component === 'cloud-controller-manager') {
    return [
      cloud('cloud-node', false),
      cloud('cloud-node-lifecycle', false),
      cloud('service', false),
      ...(routes ? [cloud('route', false)] : []),
    ];
  }
  return [
    { name: serviceAccountTokenController(version), run: idleUntil },
    cloud('service', true),
    cloud('cloud-node-lifecycle', true),
    ...(routes ? [cloud('route', true)] : []),
    ...(settings.allocateNodeCidrs ? [cloud('nodeipam', false)] : []),
  ];
}
