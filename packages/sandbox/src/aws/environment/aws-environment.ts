import { chmodSync, writeFileSync } from 'node:fs';
import { InputError } from 'uproot';
import type { AwsEmulator } from '../emulator.js';

/**
 * The environment of the person operating the sandbox (DIR/aws.env): one endpoint for every service, the
 * region and the sandbox's dummy admin key, for any AWS SDK or the AWS CLI. The operator's shell is on no
 * instance, so instance metadata is switched off (`AWS_EC2_METADATA_DISABLED`): no SDK default chain ever
 * waits for 169.254.169.254. A node's environment is `nodeEnvironment`.
 */
export function awsEnvironment(
  emulator: Pick<AwsEmulator, 'url' | 'region' | 'adminCredentials'>,
): Record<string, string> {
  return {
    AWS_ENDPOINT_URL: emulator.url,
    AWS_REGION: emulator.region,
    AWS_DEFAULT_REGION: emulator.region,
    AWS_ACCESS_KEY_ID: emulator.adminCredentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: emulator.adminCredentials.secretAccessKey,
    AWS_EC2_METADATA_DISABLED: 'true',
  };
}

/** Variables a node's processes do not have: static keys, profiles, the operator's IMDS switch. */
export const NOT_ON_A_NODE = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_PROFILE',
  'AWS_EC2_METADATA_DISABLED',
] as const;

/**
 * The environment a process on one node has: the AWS endpoint and region, and instance metadata at the
 * root of the node's own endpoint (`AWS_EC2_METADATA_SERVICE_ENDPOINT`, as 169.254.169.254 is on its
 * instance), and no keys: the SDK's default chain takes the instance role's credentials from there.
 */
export function nodeEnvironment(
  aws: { readonly url: string; readonly region: string },
  imdsEndpoint: string,
): Record<string, string> {
  return {
    AWS_EC2_METADATA_SERVICE_ENDPOINT: imdsEndpoint,
    AWS_REGION: aws.region,
    AWS_DEFAULT_REGION: aws.region,
    AWS_ENDPOINT_URL: aws.url,
  };
}

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Single-quotes a value for POSIX shells. */
function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]*$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** `export K=V` lines (and `# comment` lines before them) a POSIX shell can `source` or `eval`. */
export function shellExports(
  env: Readonly<Record<string, string>>,
  options: {
    readonly comment?: readonly string[];
    readonly unset?: readonly string[];
    readonly file?: string;
  } = {},
): string {
  for (const name of [...Object.keys(env), ...(options.unset ?? [])]) {
    if (!NAME_RE.test(name)) {
      throw new InputError('UP-AWS-ENV-NAME', `"${name}" is not a valid environment variable name`, {
        location: { ...(options.file ? { file: options.file } : {}), field: name, value: name },
        hint: 'use letters, digits and underscores, not starting with a digit',
      });
    }
  }
  const lines = [
    ...(options.comment ?? []).map((c) => `# ${c}`),
    ...(options.unset && options.unset.length > 0 ? [`unset ${options.unset.join(' ')}`] : []),
    ...Object.entries(env).map(([k, v]) => `export ${k}=${shellQuote(v)}`),
  ];
  return `${lines.join('\n')}\n`;
}

/** Writes `export K=V` lines a user can `source`, readable by the owner only (0600). */
export function writeAwsEnv(
  path: string,
  env: Readonly<Record<string, string>>,
  comment: readonly string[] = [],
): void {
  writeFileSync(path, shellExports(env, { comment, file: path }), { mode: 0o600 });
  // writeFileSync keeps an existing file's mode; make sure it is private either way.
  chmodSync(path, 0o600);
}
