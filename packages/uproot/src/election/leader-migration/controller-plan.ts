import { InputError } from '../../errors/index.js';
import {
  defaultLeaderMigrationConfiguration,
  filterController,
  formatValidationFailure,
  parseKubernetesVersion,
  serviceAccountTokenController,
  validateLeaderMigrationConfiguration,
  type KubernetesVersion,
  type LeaderMigrationConfiguration,
  type ManagerComponent,
} from '../model/index.js';
import { controllerAliases, isControllerEnabled, resolveControllerAliases } from './controller-selection.js';

/** One controller a manager can run. `run` works until `signal` aborts (or returns early if it has nothing to do). */
export interface ControllerDescriptor {
  /** The name the manager keys it by (canonical from 1.28: `service-lb-controller`). */
  readonly name: string;
  /** Extra `--controllers` aliases, on top of the version's standard ones. */
  readonly aliases?: readonly string[];
  /** Off unless named in `--controllers` (KCM: bootstrapsigner, tokencleaner). */
  readonly disabledByDefault?: boolean;
  /** KCM skips it with --cloud-provider=external (service, route, cloud-node-lifecycle). */
  readonly isCloudProviderController?: boolean;
  readonly run: (signal: AbortSignal) => Promise<void> | void;
}

export interface ControllerPlanInput {
  readonly component: ManagerComponent;
  readonly kubernetesVersion: KubernetesVersion | string;
  readonly controllers: readonly ControllerDescriptor[];
  /** `--controllers`; default `["*"]`. */
  readonly enabledControllers?: readonly string[];
  /** `--cloud-provider`. KCM runs its cloud controllers only for an in-tree provider (not "" or "external"). */
  readonly cloudProvider?: string;
  readonly leaderElect?: boolean;
  readonly migration?: { readonly enabled: boolean; readonly config?: LeaderMigrationConfiguration };
}

/** Which controllers run under which lease: the decisions of KCM's and CCM's Run, without the running. */
export interface ControllerPlan {
  readonly version: KubernetesVersion;
  /** Leader migration in effect: requested and leader election on. */
  readonly migrating: boolean;
  readonly migrationConfig: LeaderMigrationConfiguration | undefined;
  /** Run under the main lease (or without any lease when leader election is off), in start order. */
  readonly main: readonly ControllerDescriptor[];
  /** Run under the migration lease. */
  readonly migrated: readonly ControllerDescriptor[];
  /** Another manager owns these under the configuration: not run at all. */
  readonly unowned: readonly string[];
  /** Disabled through --controllers (or by default). */
  readonly disabled: readonly string[];
  /** KCM cloud-provider controllers skipped for lack of an in-tree cloud provider. */
  readonly skipped: readonly string[];
  /** KCM: the service-account-token controller's name; its start signals MigrationReady. */
  readonly serviceAccountTokenController: string | undefined;
}

export function planControllers(input: ControllerPlanInput): ControllerPlan {
  const version =
    typeof input.kubernetesVersion === 'string'
      ? parseKubernetesVersion(input.kubernetesVersion, 'kubernetesVersion')
      : input.kubernetesVersion;
  const leaderElect = input.leaderElect ?? true;
  const migrationConfig = input.migration?.enabled
    ? effectiveMigrationConfig(input.migration.config, version)
    : undefined;
  const migrating = leaderElect && migrationConfig !== undefined;

  const aliases: Record<string, string> = { ...controllerAliases(input.component, version) };
  for (const d of input.controllers) for (const a of d.aliases ?? []) aliases[a] = d.name;
  const flag = resolveControllerAliases(input.enabledControllers ?? ['*'], aliases);
  const disabledByDefault = new Set(input.controllers.filter((d) => d.disabledByDefault).map((d) => d.name));
  const inTreeCloud = (input.cloudProvider ?? '') !== '' && input.cloudProvider !== 'external';

  const disabled: string[] = [];
  const skipped: string[] = [];
  const enabled: ControllerDescriptor[] = [];
  for (const d of input.controllers) {
    if (!isControllerEnabled(d.name, disabledByDefault, flag)) disabled.push(d.name);
    else if (input.component === 'kube-controller-manager' && d.isCloudProviderController && !inTreeCloud)
      skipped.push(d.name);
    else enabled.push(d);
  }

  const saToken =
    input.component === 'kube-controller-manager' ? serviceAccountTokenController(version) : undefined;
  // The SA-token controller starts first: it mints the other controllers' credentials.
  const ordered = [...enabled].sort((a, b) => Number(b.name === saToken) - Number(a.name === saToken));
  if (!migrating) {
    return {
      version,
      migrating,
      migrationConfig,
      main: ordered,
      migrated: [],
      unowned: [],
      disabled,
      skipped,
      serviceAccountTokenController: saToken,
    };
  }
  const filter = filterController(migrationConfig!, input.component);
  const main: ControllerDescriptor[] = [];
  const migrated: ControllerDescriptor[] = [];
  const unowned: string[] = [];
  for (const d of ordered) {
    // KCM always runs the SA-token controller under the main lease, whatever the configuration says.
    const ownership = d.name === saToken ? 'non-migrated' : filter(d.name);
    if (ownership === 'migrated') migrated.push(d);
    else if (ownership === 'unowned') unowned.push(d.name);
    else main.push(d);
  }
  return {
    version,
    migrating,
    migrationConfig,
    main,
    migrated,
    unowned,
    disabled,
    skipped,
    serviceAccountTokenController: saToken,
  };
}

/** The configuration a manager uses with migration enabled: the file's, validated, or the version's default. */
export function effectiveMigrationConfig(
  config: LeaderMigrationConfiguration | undefined,
  version: KubernetesVersion,
): LeaderMigrationConfiguration {
  if (config) {
    const errors = validateLeaderMigrationConfiguration(config, version);
    if (errors.length > 0) {
      throw new InputError('UP-MANAGER-MIGRATION-CONFIG', formatValidationFailure(errors), {
        location: { field: errors[0]!.field },
        hint: 'fix the LeaderMigrationConfiguration; the manager does not start with an invalid one',
      });
    }
    return config;
  }
  const fallback = defaultLeaderMigrationConfiguration(version);
  if (!fallback) {
    throw new InputError('UP-MANAGER-MIGRATION-CONFIG', '--leader-migration-config is required', {
      location: { field: '--leader-migration-config' },
      hint: `Kubernetes ${version.raw} has no default leader-migration configuration; pass a file`,
    });
  }
  return fallback;
}
