/**
 * The flags migrate and rollback share (how changes reach the cluster, gate deadlines), validated up front so
 * bad input fails before anything is read or written. Which cluster they talk to: targets.ts.
 */
import { resolve } from 'node:path';
import type { Clock, Random } from '../../clock/index.js';
import type { StepId } from '../../core/model/plan-types.js';
import { InputError } from '../../errors/index.js';
import type { StepTransforms } from '../../engine/appliers/applier-types.js';
import { parseCommandTemplate } from '../../engine/appliers/command-template.js';
import type { EventSink } from '../../engine/events.js';
import type { OwnershipInference } from '../../core/ownership/index.js';
import type { CommandRunner } from '../../engine/ports.js';
import type { ExecutionSettings } from './engine-wiring.js';

export interface ExecutionFlags {
  /** Multiplies every gate deadline (default 1). */
  readonly gateTimeoutScale?: number;
  readonly rkeBinary?: string;
  readonly rkeTimeoutSeconds?: number;
  readonly manifestsOut?: string;
  readonly nodeCommand?: string;
  readonly nodeDeleteCommand?: string;
  readonly nodeCommandTimeoutSeconds?: number;
  /** Steps whose manual actions a person has done (non-interactive confirmation). */
  readonly manualDone?: readonly StepId[];
  /** The promise-kept gate lets breaches that ended before this run pass (a person looked at them). */
  readonly acceptGap?: boolean;
}

/** The terminal side of a run: where relative paths start, whether a person can answer. */
export interface RunHost {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly interactive: boolean;
  confirm?(question: string): Promise<boolean>;
  readonly signal?: AbortSignal;
}

export interface EngineDeps {
  readonly clock: Clock;
  readonly random?: Random;
  readonly runner: CommandRunner;
  readonly transforms?: StepTransforms;
  readonly inference?: OwnershipInference;
  readonly notify?: EventSink;
}

function positive(value: number | undefined, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) {
    throw new InputError('UP-MIGRATE-FLAGS', `${field} must be a positive number, got ${value}`, {
      location: { field, value },
      hint: `e.g. ${field} ${fallback}`,
    });
  }
  return value;
}

export function executionSettings(
  flags: ExecutionFlags,
  host: RunHost,
  deps: EngineDeps,
  extra: { readonly signal?: AbortSignal; readonly force?: boolean } = {},
): ExecutionSettings {
  const nodeTimeout = positive(flags.nodeCommandTimeoutSeconds, '--node-command-timeout', 120) * 1000;
  return {
    cwd: host.cwd,
    clock: deps.clock,
    ...(deps.random ? { random: deps.random } : {}),
    ...(extra.signal ? { signal: extra.signal } : {}),
    ...(deps.notify ? { notify: deps.notify } : {}),
    confirm: host.interactive && host.confirm ? (q) => host.confirm!(q) : undefined,
    manualDone: new Set(flags.manualDone ?? []),
    ...(deps.transforms ? { transforms: deps.transforms } : {}),
    runner: deps.runner,
    rke: {
      ...(flags.rkeBinary ? { binary: flags.rkeBinary } : {}),
      timeoutMs: positive(flags.rkeTimeoutSeconds, '--rke-timeout', 3600) * 1000,
    },
    nodeFiles: {
      timeoutMs: nodeTimeout,
      ...(flags.manifestsOut ? { manifestsOut: resolve(host.cwd, flags.manifestsOut) } : {}),
      ...(flags.nodeCommand
        ? { nodeCommand: parseCommandTemplate(flags.nodeCommand, '--node-command', ['node', 'path']) }
        : {}),
      ...(flags.nodeDeleteCommand
        ? {
            nodeDeleteCommand: parseCommandTemplate(flags.nodeDeleteCommand, '--node-delete-command', [
              'node',
              'path',
            ]),
          }
        : {}),
    },
    gateTimeoutScale: positive(flags.gateTimeoutScale, '--gate-timeout-scale', 1),
    ...(deps.inference ? { inference: deps.inference } : {}),
    ...(extra.force ? { force: true } : {}),
    ...(flags.acceptGap ? { acceptedUntil: deps.clock.now() } : {}),
  };
}

export type { TargetFlags } from '../targets.js';
