import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { InputError } from 'uproot';
import { writePrivateFile } from '../boot/twin-files.js';

/**
 * DIR/sandbox.json: how to reach a running twin (URLs, pid, the control endpoint and its token, the
 * scenario). Mode 0600, since it holds the control token.
 */
export const sandboxStateSchema = z.object({
  version: z.literal(1),
  pid: z.number().int(),
  scenario: z.string(),
  distribution: z.string(),
  startedAt: z.string(),
  kubeconfig: z.string(),
  awsEnv: z.string(),
  rkeConfig: z.string().optional(),
  contexts: z.object({ downstream: z.string(), rancher: z.string().optional() }),
  urls: z.object({ kubernetes: z.string(), rancher: z.string().optional(), aws: z.string() }),
  control: z.object({ url: z.string(), token: z.string() }),
  timeScale: z.number(),
  /** The AWS account's region (older files: absent). */
  region: z.string().optional(),
  /**
   * Every node as it started: its name, its instance, and its instance metadata endpoint (the root of it
   * is what 169.254.169.254 is on that instance). `uproot sandbox env --node NAME` reads it.
   */
  nodes: z
    .array(z.object({ name: z.string(), instanceId: z.string(), imdsEndpoint: z.string() }))
    .default([]),
});

export type SandboxState = z.infer<typeof sandboxStateSchema>;
export type SandboxNode = z.infer<typeof sandboxStateSchema>['nodes'][number];

export const SANDBOX_STATE_FILE = 'sandbox.json';

export function writeSandboxState(dir: string, state: SandboxState): string {
  const path = join(dir, SANDBOX_STATE_FILE);
  writePrivateFile(path, `${JSON.stringify(state, null, 2)}\n`);
  return path;
}

export function readSandboxState(dir: string): SandboxState {
  const path = join(dir, SANDBOX_STATE_FILE);
  if (!existsSync(path)) {
    throw new InputError(
      'UP-SANDBOX-NOT-RUNNING',
      `no sandbox is running in ${dir} (${path} does not exist)`,
      {
        location: { file: path },
        hint: 'start one with `uproot sandbox up --dir DIR`, or pass the --dir it was started with',
      },
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new InputError('UP-SANDBOX-STATE', `${path} is not valid JSON`, {
      location: { file: path },
      hint: 'remove the file and start the sandbox again',
      cause: error,
    });
  }
  const parsed = sandboxStateSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError('UP-SANDBOX-STATE', `${path}: ${issue.path.join('.')}: ${issue.message}`, {
      location: { file: path, field: issue.path.join('.') },
      hint: 'remove the file and start the sandbox again',
    });
  }
  return parsed.data;
}
