import type { KubernetesVersion } from './kubernetes-version.js';
import { controllersOf } from './controller-names.js';
import {
  ANY_COMPONENT,
  type ControllerOwnership,
  type LeaderMigrationConfiguration,
  type ManagerComponent,
} from './leader-migration-config.js';

/**
 * NewLeaderMigrator(cfg, component).FilterFunc: a name listed for this component (or "*") is migrated, listed
 * for another component is unowned (another manager runs it), absent is non-migrated (main lease).
 * Duplicate names: the last entry wins, as upstream's plain map assignment does.
 */
export function filterController(
  config: LeaderMigrationConfiguration,
  component: ManagerComponent,
): (controller: string) => ControllerOwnership {
  const owned = new Map<string, boolean>();
  for (const leader of config.controllerLeaders) {
    owned.set(leader.name, leader.component === component || leader.component === ANY_COMPONENT);
  }
  return (controller) => {
    const mine = owned.get(controller);
    if (mine === undefined) return 'non-migrated';
    return mine ? 'migrated' : 'unowned';
  };
}

export interface ControllerResolution {
  readonly controller: string;
  readonly ownership: ControllerOwnership;
}

/** Resolves every controller the manager of `version` has; `cloudOnly` limits it to the cloud controllers. */
export function resolveControllers(
  config: LeaderMigrationConfiguration,
  component: ManagerComponent,
  version: KubernetesVersion,
  controllers: readonly string[] = controllersOf(component, version),
): ControllerResolution[] {
  const filter = filterController(config, component);
  return controllers.map((controller) => ({ controller, ownership: filter(controller) }));
}
