import { parseKubernetesVersion, type KubernetesVersion } from '../model/kubernetes-version.js';
import { decodeLeaderMigrationConfiguration, type ConfigIssue } from './decode.js';
import { resolveControllers, type ControllerResolution } from '../../election/model/index.js';
import { lintLeaderMigrationConfiguration, type LintOptions } from './lint.js';
import type {
  LeaderMigrationApiVersion,
  LeaderMigrationConfiguration,
  ManagerComponent,
} from '../../election/model/index.js';
import { validateLeaderMigrationConfiguration } from '../../election/model/index.js';

export interface LeaderMigrationReport {
  readonly file: string;
  readonly kubernetesVersion: string;
  readonly apiVersion: LeaderMigrationApiVersion;
  readonly valid: boolean;
  readonly config: LeaderMigrationConfiguration;
  /** Strict-decoding and validation errors: the manager would refuse to start. */
  readonly errors: readonly ConfigIssue[];
  readonly warnings: readonly ConfigIssue[];
  /** Per manager, what each of its cloud-relevant controllers resolves to. */
  readonly resolution: Partial<Record<ManagerComponent, readonly ControllerResolution[]>>;
}

export interface CheckOptions {
  readonly file?: string;
  readonly kubernetesVersion?: KubernetesVersion;
  /** Resolve for these managers (default: both). */
  readonly components?: readonly ManagerComponent[];
  readonly kcmFlags?: LintOptions['kcmFlags'];
}

/** Decode + validate + lint + resolve: everything `uproot leader-migration validate` reports. */
export function checkLeaderMigrationConfiguration(
  text: string,
  options: CheckOptions = {},
): LeaderMigrationReport {
  const version = options.kubernetesVersion ?? parseKubernetesVersion('1.32');
  const decoded = decodeLeaderMigrationConfiguration(text, {
    file: options.file,
    kubernetesVersion: version,
  });
  const validation: ConfigIssue[] = validateLeaderMigrationConfiguration(decoded.config, version).map(
    (e) => ({
      severity: 'error',
      code: e.type === 'Required value' ? 'required' : 'invalid',
      message: e.message,
      field: e.field,
      ...(decoded.locate(e.field) ?? decoded.locate(e.field.replace(/\.[a-z]+$/i, '')) ?? {}),
    }),
  );
  const lint = lintLeaderMigrationConfiguration(decoded.config, {
    kubernetesVersion: version,
    kcmFlags: options.kcmFlags,
    locate: decoded.locate,
  });
  const all = [...decoded.issues, ...validation, ...lint];
  const resolution: Partial<Record<ManagerComponent, readonly ControllerResolution[]>> = {};
  for (const component of options.components ??
    (['kube-controller-manager', 'cloud-controller-manager'] as const)) {
    resolution[component] = resolveControllers(decoded.config, component, version);
  }
  const errors = all.filter((i) => i.severity === 'error');
  return {
    file: options.file ?? '<input>',
    kubernetesVersion: version.raw,
    apiVersion: decoded.apiVersion,
    valid: errors.length === 0,
    config: decoded.config,
    errors,
    warnings: all.filter((i) => i.severity === 'warning'),
    resolution,
  };
}
