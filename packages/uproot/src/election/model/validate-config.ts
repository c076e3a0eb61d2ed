import { atLeast, type KubernetesVersion } from './kubernetes-version.js';
import type { LeaderMigrationConfiguration } from './leader-migration-config.js';

/** One upstream field.Error, with the same field path and message format (`Field: Type[: "value"][: detail]`). */
export interface FieldError {
  readonly field: string;
  readonly type: 'Required value' | 'Invalid value';
  readonly value?: string;
  readonly detail?: string;
  readonly message: string;
}

/**
 * ValidateLeaderMigrationConfiguration: exactly upstream's checks, in upstream's order. Everything else
 * (duplicates, unknown components, names) is not validated upstream; see lint.ts.
 * `version` selects the message text: 1.34 dropped the detail of the two Required errors.
 */
export function validateLeaderMigrationConfiguration(
  config: LeaderMigrationConfiguration,
  version?: KubernetesVersion,
): FieldError[] {
  const errors: FieldError[] = [];
  const terse = version ? atLeast(version, 1, 34) : false;
  if (config.leaderName === '') {
    errors.push(required('leaderName', 'leaderName must be set for LeaderMigrationConfiguration'));
  }
  if (config.resourceLock !== 'leases' && config.resourceLock !== 'endpoints') {
    errors.push(
      invalid('resourceLock', config.resourceLock, "resource Lock must be one of 'leases' or 'endpoints'"),
    );
  }
  config.controllerLeaders.forEach((leader, i) => {
    if (leader.component === '') {
      errors.push(required(`controllerLeaders[${i}].component`, terse ? undefined : 'component must be set'));
    }
    if (leader.name === '') {
      errors.push(required(`controllerLeaders[${i}].name`, terse ? undefined : 'name must be set'));
    }
  });
  return errors;
}

/** How the options layer wraps the list: `failed to parse leader migration configuration: [e1 e2]`. */
export function formatValidationFailure(errors: readonly FieldError[]): string {
  return `failed to parse leader migration configuration: [${errors.map((e) => e.message).join(' ')}]`;
}

function required(field: string, detail?: string): FieldError {
  return {
    field,
    type: 'Required value',
    detail,
    message: `${field}: Required value${detail ? `: ${detail}` : ''}`,
  };
}

function invalid(field: string, value: string, detail: string): FieldError {
  return {
    field,
    type: 'Invalid value',
    value,
    detail,
    message: `${field}: Invalid value: ${JSON.stringify(value)}: ${detail}`,
  };
}
