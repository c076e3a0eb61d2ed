import {
  atLeast,
  controllersOf,
  parseKubernetesVersion,
  type KubernetesVersion,
  type LeaderMigrationConfiguration,
  type ManagerComponent,
} from '../model/index.js';
import { electionTimingsError, type ElectionTimings } from '../elector/election-config.js';
import { controllerAliases, validateControllerFlag } from './controller-selection.js';
import { parseGoBool, parseGoDuration } from '../model/go-flag-values.js';
import type { ControllerManagerOptions } from './run-controller-manager.js';
import { FlagValueError } from '../errors.js';

/** The manager flags uproot models, with upstream defaults filled in. */
export interface ManagerFlags {
  readonly component: ManagerComponent;
  readonly kubernetesVersion: KubernetesVersion;
  readonly cloudProvider: string;
  readonly enableLeaderMigration: boolean;
  /** Path of the LeaderMigrationConfiguration; read only when migration is enabled. */
  readonly leaderMigrationConfig: string;
  /** `--controllers` as given (aliases not yet resolved). */
  readonly controllers: readonly string[];
  readonly leaderElect: boolean;
  readonly timings: ElectionTimings;
  readonly resourceName: string;
  readonly resourceNamespace: string;
  readonly resourceLock: string;
  readonly configureCloudRoutes: boolean;
  readonly useServiceAccountCredentials: boolean;
  readonly featureGates: Readonly<Record<string, boolean>>;
  /** Flags uproot does not model, kept as given (value "true" for a bare flag). */
  readonly other: Readonly<Record<string, string>>;
}

export type ManagerFlagsResult =
  | { readonly ok: true; readonly flags: ManagerFlags; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly errors: readonly string[]; readonly warnings: readonly string[] };

export interface ManagerFlagsOptions {
  readonly component: ManagerComponent;
  readonly kubernetesVersion: KubernetesVersion | string;
  /** Reject flags uproot does not model (`unknown flag: --x`). Default false: keep them in `other`, with a warning. */
  readonly strict?: boolean;
  /** Controller names `--controllers` may use; default the version's table. */
  readonly knownControllers?: readonly string[];
}

type Kind = 'string' | 'bool' | 'duration' | 'slice' | 'gates';
const FLAGS: Record<string, Kind> = {
  'cloud-provider': 'string',
  'enable-leader-migration': 'bool',
  'leader-migration-config': 'string',
  controllers: 'slice',
  'leader-elect': 'bool',
  'leader-elect-lease-duration': 'duration',
  'leader-elect-renew-deadline': 'duration',
  'leader-elect-retry-period': 'duration',
  'leader-elect-resource-name': 'string',
  'leader-elect-resource-namespace': 'string',
  'leader-elect-resource-lock': 'string',
  'configure-cloud-routes': 'bool',
  'use-service-account-credentials': 'bool',
  'feature-gates': 'gates',
};

const MIGRATION_GATE = 'ControllerManagerLeaderMigration';

/**
 * Parses controller-manager flags as pflag and the managers' Validate do, with upstream's messages:
 * `invalid argument "x" for "--leader-elect" flag: ...`, `resourceLock value must be "leases"`,
 * `Leader Migration is not enabled through feature gate`, `"x" is not in the list of known controllers`.
 * Pure: the migration configuration file is not read here (see managerOptionsFromFlags).
 */
export function parseManagerFlags(argv: readonly string[], options: ManagerFlagsOptions): ManagerFlagsResult {
  const version =
    typeof options.kubernetesVersion === 'string'
      ? parseKubernetesVersion(options.kubernetesVersion, 'kubernetesVersion')
      : options.kubernetesVersion;
  const warnings: string[] = [];
  const values = new Map<string, string[]>();
  const other: Record<string, string> = {};
  const positional: string[] = [];

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('-') || arg === '-') {
      positional.push(arg);
      continue;
    }
    if (arg === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    const body = arg.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = eq < 0 ? body : body.slice(0, eq);
    const kind = FLAGS[name];
    if (!kind || !arg.startsWith('--')) {
      if (options.strict)
        return fail([`unknown flag: ${arg.startsWith('--') ? `--${name}` : `-${name}`}`], warnings);
      other[name] = eq < 0 ? 'true' : body.slice(eq + 1);
      warnings.push(`flag --${name} is not modelled by uproot; ignored`);
      continue;
    }
    let value: string;
    if (eq >= 0) value = body.slice(eq + 1);
    else if (kind === 'bool') value = 'true';
    else if (i + 1 < argv.length) value = argv[++i]!;
    else return fail([`flag needs an argument: --${name}`], warnings);
    values.set(name, [...(values.get(name) ?? []), value]);
  }
  if (positional.some((a) => a !== '')) {
    return fail(
      [`"${options.component}" does not take any arguments, got ${JSON.stringify(positional)}`],
      warnings,
    );
  }

  const last = (name: string): string | undefined => values.get(name)?.at(-1);
  const invalid = (name: string, value: string, error: unknown): string =>
    `invalid argument ${JSON.stringify(value)} for "--${name}" flag: ${(error as Error).message}`;
  const bool = (name: string, fallback: boolean): boolean => {
    const v = last(name);
    return v === undefined ? fallback : parseGoBool(v);
  };
  const duration = (name: string, fallback: number): number => {
    const v = last(name);
    return v === undefined ? fallback : parseGoDuration(v);
  };

  // pflag stops at the first bad value, so report one.
  for (const [name, list] of values) {
    for (const value of list) {
      try {
        if (FLAGS[name] === 'bool') parseGoBool(value);
        if (FLAGS[name] === 'duration') parseGoDuration(value);
        if (FLAGS[name] === 'gates') parseGates(value, version, {});
      } catch (error) {
        return fail([invalid(name, value, error)], warnings);
      }
    }
  }

  const gates: Record<string, boolean> = {};
  for (const value of values.get('feature-gates') ?? []) warnings.push(...parseGates(value, version, gates));
  const flags: ManagerFlags = {
    component: options.component,
    kubernetesVersion: version,
    cloudProvider: last('cloud-provider') ?? '',
    enableLeaderMigration: bool('enable-leader-migration', false),
    leaderMigrationConfig: last('leader-migration-config') ?? '',
    controllers: values.has('controllers') ? values.get('controllers')!.flatMap(splitCsv) : ['*'],
    leaderElect: bool('leader-elect', true),
    timings: {
      leaseDurationMs: duration('leader-elect-lease-duration', 15_000),
      renewDeadlineMs: duration('leader-elect-renew-deadline', 10_000),
      retryPeriodMs: duration('leader-elect-retry-period', 2_000),
    },
    resourceName: last('leader-elect-resource-name') ?? options.component,
    resourceNamespace: last('leader-elect-resource-namespace') ?? 'kube-system',
    resourceLock: last('leader-elect-resource-lock') ?? 'leases',
    configureCloudRoutes: bool('configure-cloud-routes', true),
    useServiceAccountCredentials: bool('use-service-account-credentials', false),
    featureGates: gates,
    other,
  };

  const errors = validate(flags, options);
  return errors.length > 0 ? fail(errors, warnings) : { ok: true, flags, warnings };
}

/** The runtime options these flags imply; pass the decoded --leader-migration-config when migration is enabled. */
export function managerOptionsFromFlags(
  flags: ManagerFlags,
  leaderMigrationConfiguration?: LeaderMigrationConfiguration,
): Pick<
  ControllerManagerOptions,
  | 'component'
  | 'kubernetesVersion'
  | 'mainLeaseName'
  | 'leaderElect'
  | 'migration'
  | 'enabledControllers'
  | 'cloudProvider'
  | 'timings'
> {
  return {
    component: flags.component,
    kubernetesVersion: flags.kubernetesVersion,
    mainLeaseName: flags.resourceName,
    leaderElect: flags.leaderElect,
    // With migration disabled the file is never read (upstream ApplyTo returns first).
    migration: flags.enableLeaderMigration
      ? { enabled: true, ...(leaderMigrationConfiguration ? { config: leaderMigrationConfiguration } : {}) }
      : { enabled: false },
    enabledControllers: flags.controllers,
    cloudProvider: flags.cloudProvider,
    timings: flags.timings,
  };
}

function validate(flags: ManagerFlags, options: ManagerFlagsOptions): string[] {
  const errors: string[] = [];
  const version = flags.kubernetesVersion;
  if (flags.component === 'cloud-controller-manager' && flags.cloudProvider === '') {
    errors.push('--cloud-provider cannot be empty');
  }
  if (flags.enableLeaderMigration) {
    if (!migrationGateEnabled(version, flags.featureGates))
      errors.push('Leader Migration is not enabled through feature gate');
    else if (!atLeast(version, 1, 22) && flags.leaderMigrationConfig === '')
      errors.push('--leader-migration-config is required');
  }
  if (flags.leaderElect && flags.resourceLock !== 'leases') {
    errors.push(
      atLeast(version, 1, 24)
        ? 'resourceLock value must be "leases"'
        : `--leader-elect-resource-lock=${flags.resourceLock}: uproot simulates only the leases lock`,
    );
  }
  const aliases = controllerAliases(flags.component, version);
  errors.push(
    ...validateControllerFlag(
      flags.controllers,
      options.knownControllers ?? controllersOf(flags.component, version),
      aliases,
    ),
  );
  // The manager would reach leaderelection.RunOrDie and panic with client-go's message.
  const timingError = flags.leaderElect ? electionTimingsError(flags.timings) : undefined;
  if (timingError) errors.push(timingError);
  return errors;
}

/** ControllerManagerLeaderMigration: alpha (off) in 1.21, beta (on) 1.22–1.23, GA (locked on) 1.24–1.26, gone in 1.27. */
function migrationGate(version: KubernetesVersion): { known: boolean; default: boolean; locked: boolean } {
  if (!atLeast(version, 1, 21) || atLeast(version, 1, 27))
    return { known: false, default: true, locked: false };
  if (!atLeast(version, 1, 22)) return { known: true, default: false, locked: false };
  return { known: true, default: true, locked: atLeast(version, 1, 24) };
}

function migrationGateEnabled(version: KubernetesVersion, gates: Readonly<Record<string, boolean>>): boolean {
  const gate = migrationGate(version);
  // Before 1.21 there is no leader migration at all; from 1.27 it needs no gate.
  if (!gate.known) return atLeast(version, 1, 21);
  return gates[MIGRATION_GATE] ?? gate.default;
}

/** component-base featuregate Set for one `--feature-gates` value; fills `into`, returns warnings, throws on errors. */
function parseGates(value: string, version: KubernetesVersion, into: Record<string, boolean>): string[] {
  const warnings: string[] = [];
  for (const pair of value.split(',')) {
    const trimmed = pair.trim();
    if (trimmed === '') continue;
    const eq = trimmed.indexOf('=');
    if (eq < 0) throw new FlagValueError(`missing bool value for ${trimmed}`);
    const key = trimmed.slice(0, eq).trim();
    const raw = trimmed.slice(eq + 1).trim();
    let enabled: boolean;
    try {
      enabled = parseGoBool(raw);
    } catch (error) {
      throw new FlagValueError(`invalid value of ${key}=${raw}, err: ${(error as Error).message}`);
    }
    if (key === MIGRATION_GATE) {
      const gate = migrationGate(version);
      if (!gate.known) throw new FlagValueError(`unrecognized feature gate: ${key}`);
      if (gate.locked && enabled !== gate.default) {
        throw new FlagValueError(
          `cannot set feature gate ${key} to ${enabled}, feature is locked to ${gate.default}`,
        );
      }
    } else {
      warnings.push(`feature gate ${key} is not modelled by uproot; ignored`);
    }
    into[key] = enabled;
  }
  return warnings;
}

function splitCsv(value: string): string[] {
  return value === '' ? [] : value.split(',').map((s) => s.trim());
}

function fail(errors: string[], warnings: string[]): ManagerFlagsResult {
  return { ok: false, errors, warnings };
}
