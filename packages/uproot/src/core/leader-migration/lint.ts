import { atLeast, type KubernetesVersion } from '../model/kubernetes-version.js';
import {
  controllersOf,
  logicalControllerOf,
  controllerNameInEra,
  usesCanonicalNames,
} from '../../election/model/index.js';
import type { ConfigIssue } from './decode.js';
import {
  ANY_COMPONENT,
  MANAGER_COMPONENTS,
  type LeaderMigrationConfiguration,
} from '../../election/model/index.js';

export interface LintOptions {
  /** The Kubernetes version of the managers that will read the file. */
  readonly kubernetesVersion: KubernetesVersion;
  /** KCM's flags, when known: a KCM on the external provider must not enable migration (seed 003). */
  readonly kcmFlags?: { readonly cloudProvider?: string; readonly enableLeaderMigration?: boolean };
  readonly locate?: (field: string) => { line: number; column: number } | undefined;
}

/** Checks beyond upstream validation, all warnings: things that load fine and then misbehave. */
export function lintLeaderMigrationConfiguration(
  config: LeaderMigrationConfiguration,
  options: LintOptions,
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const at = (field: string): { line?: number; column?: number } => options.locate?.(field) ?? {};
  const version = options.kubernetesVersion;

  const firstIndex = new Map<string, number>();
  config.controllerLeaders.forEach((leader, i) => {
    const field = `controllerLeaders[${i}]`;
    const earlier = firstIndex.get(leader.name);
    if (earlier !== undefined) {
      issues.push({
        severity: 'warning',
        code: 'duplicate-controller',
        message: `controller "${leader.name}" is listed twice (entries ${earlier} and ${i}); upstream keeps only the last (component "${leader.component}")`,
        field: `${field}.name`,
        ...at(`${field}.name`),
        hint: 'keep one entry per controller',
      });
    } else {
      firstIndex.set(leader.name, i);
    }
    if (
      leader.component !== '' &&
      leader.component !== ANY_COMPONENT &&
      !(MANAGER_COMPONENTS as readonly string[]).includes(leader.component)
    ) {
      issues.push({
        severity: 'warning',
        code: 'unknown-component',
        message: `component "${leader.component}" is neither kube-controller-manager, cloud-controller-manager nor "*": no manager will run "${leader.name}"`,
        field: `${field}.component`,
        ...at(`${field}.component`),
        hint: 'use kube-controller-manager, cloud-controller-manager or "*" (quoted)',
      });
    }
    if (leader.name !== '') {
      const known = MANAGER_COMPONENTS.some((c) => controllersOf(c, version).includes(leader.name));
      if (!known) issues.push(unknownController(leader.name, field, version, at(`${field}.name`)));
    }
  });

  if (config.resourceLock === 'endpoints' && atLeast(version, 1, 24)) {
    issues.push({
      severity: 'warning',
      code: 'endpoints-lock-removed',
      message:
        'resourceLock "endpoints" passes validation, but from 1.24 client-go refuses it ("endpoints lock is removed, migrate to leases") once the main lease is won, and the manager exits',
      field: 'resourceLock',
      ...at('resourceLock'),
      hint: 'use resourceLock: leases (or apiVersion v1, which has no resourceLock)',
    });
  }
  if (options.kcmFlags?.cloudProvider === 'external' && options.kcmFlags.enableLeaderMigration) {
    issues.push({
      severity: 'warning',
      code: 'external-kcm-migrating',
      message:
        'kube-controller-manager runs --cloud-provider=external and also enables leader migration: it skips the cloud controllers, so if it wins the migration lease no manager runs them',
      hint: 'remove --enable-leader-migration (and --leader-migration-config) from kube-controller-manager once it uses the external provider',
    });
  }
  return issues;
}

function unknownController(
  name: string,
  field: string,
  version: KubernetesVersion,
  pos: { line?: number; column?: number },
): ConfigIssue {
  const logical = logicalControllerOf(name);
  const canonical = usesCanonicalNames(version);
  let hint = `managers of ${version.raw} know none by that name; it is ignored`;
  if (logical) {
    hint = `Kubernetes ${version.raw} calls it "${controllerNameInEra(logical, canonical)}"; names are compared literally, never through aliases`;
  } else if (name === 'route-controller' || name === 'service-controller') {
    const suggested = name === 'route-controller' ? 'node-route-controller' : 'service-lb-controller';
    hint = canonical
      ? `the 1.28+ default configuration uses this name, but the controller is "${suggested}", so it is not migrated; list "${suggested}"`
      : `before 1.28 the controller is "${name.replace('-controller', '')}"`;
  } else if (name === '*') {
    hint = '"*" has no wildcard meaning in a controller name';
  }
  return {
    severity: 'warning',
    code: 'unknown-controller',
    message: `controller "${name}" matches no controller of Kubernetes ${version.raw}`,
    field: `${field}.name`,
    ...pos,
    hint,
  };
}
