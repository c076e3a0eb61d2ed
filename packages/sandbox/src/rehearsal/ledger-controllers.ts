import type { Clock } from 'uproot';
import {
  controllersOf,
  logicalControllerOf,
  type KubernetesVersion,
  type Ledger,
  type ManagerComponent,
} from 'uproot/core';
import type { ControllerDescriptor } from 'uproot/election';

const CLOUD_PROVIDER = new Set(['route', 'service', 'cloud-node-lifecycle']);
const DISABLED_BY_DEFAULT = new Set([
  'bootstrapsigner',
  'tokencleaner',
  'bootstrap-signer-controller',
  'token-cleaner-controller',
]);

/**
 * Every controller of a manager version as a descriptor that writes to the ledger: `started`, a `reconcile`
 * every `actionIntervalMs` for the cloud-related controllers, `stopped` when its signal aborts. The work itself
 * is not simulated here; the sandbox's simulated managers put the cloud controllers behind the same descriptors.
 */
export function ledgerControllers(options: {
  readonly component: ManagerComponent;
  readonly version: KubernetesVersion;
  readonly identity: () => string;
  readonly ledger: Ledger;
  readonly clock: Clock;
  readonly actionIntervalMs: number;
}): ControllerDescriptor[] {
  const { component, ledger, clock } = options;
  return controllersOf(component, options.version).map((name) => {
    const logical = logicalControllerOf(name);
    const record = (action: string): void =>
      ledger.record({ controller: name, component, identity: options.identity(), time: clock.now(), action });
    return {
      name,
      isCloudProviderController:
        component === 'kube-controller-manager' && logical !== undefined && CLOUD_PROVIDER.has(logical),
      disabledByDefault: DISABLED_BY_DEFAULT.has(name),
      run: async (signal: AbortSignal) => {
        record('started');
        try {
          while (logical !== undefined && !signal.aborted) {
            await clock.sleep(options.actionIntervalMs, signal);
            record('reconcile');
          }
          if (!signal.aborted)
            await new Promise<void>((resolve) =>
              signal.addEventListener('abort', () => resolve(), { once: true }),
            );
        } catch {
          // aborted while waiting
        } finally {
          record('stopped');
        }
      },
    };
  });
}
