import { chmodSync, writeFileSync } from 'node:fs';
import { InputError } from '../../../index.js';
import type { AwsEmulator } from '../emulator.js';

export interface AwsEnvironmentOptions {
  /** Use this IMDS endpoint (e.g. from `openInstanceImds`) instead of the shared port's path prefix. */
  readonly imdsEndpoint?: string;
}

/**
 * The environment a shell or a child process needs to talk to the emulator with any AWS SDK or the AWS CLI:
 * one endpoint for every service, the region, the sandbox's dummy admin key, and IMDS (an instance's, or the
 * emulator itself, which answers 404 at once instead of the SDK waiting on 169.254.169.254).
 */
export function awsEnvironment(
  emulator: Pick<AwsEmulator, 'url' | 'region' | 'adminCredentials' | 'imdsEndpoint'>,
  instanceId?: string,
  options: AwsEnvironmentOptions = {},
): Record<string, string> {
  return {
    AWS_ENDPOINT_URL: emulator.url,
    AWS_REGION: emulator.region,
    AWS_DEFAULT_REGION: emulator.region,
    AWS_ACCESS_KEY_ID: emulator.adminCredentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: emulator.adminCredentials.secretAccessKey,
    AWS_EC2_METADATA_SERVICE_ENDPOINT:
      options.imdsEndpoint ??
      (instanceId === undefined ? `${emulator.url}/` : emulator.imdsEndpoint(instanceId)),
  };
}

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Single-quotes a value for POSIX shells. */
function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]*$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Writes `export K=V` lines a user can `source`, readable by the owner only (0600). */
export function writeAwsEnv(path: string, env: Readonly<Record<string, string>>): void {
  for (const name of Object.keys(env)) {
    if (!NAME_RE.test(name)) {
      throw new InputError('UP-AWS-ENV-NAME', `"${name}" is not a valid environment variable name`, {
        location: { file: path, field: name, value: name },
        hint: 'use letters, digits and underscores, not starting with a digit',
      });
    }
  }
  const text = Object.entries(env)
    .map(([k, v]) => `export ${k}=${shellQuote(v)}`)
    .join('\n');
  writeFileSync(path, `${text}\n`, { mode: 0o600 });
  // writeFileSync keeps an existing file's mode; make sure it is private either way.
  chmodSync(path, 0o600);
}
