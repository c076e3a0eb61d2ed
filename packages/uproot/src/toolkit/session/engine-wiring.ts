/**
 * Assembles what the executor and rollback need from the adapters: the appliers for every change type and
 * the gate runner, with the distribution's facts (control-plane selector, rollout command) from its planner.
 * The one place that hands adapters to the engine's appliers.
 */
import type { Clock, Random } from '../../clock/index.js';
import { planFacts, controlPlaneSelectorFor } from '../../core/distros/distro-facts.js';
import type { MigrationPlan, StepId } from '../../core/model/plan-types.js';
import { localFiles } from '../../adapters/files/backed-up-write.js';
import { KubeGateReader } from '../../adapters/kube/gate-reader.js';
import type { Confirm, StepTransforms } from '../../engine/appliers/applier-types.js';
import { changeActions, type Appliers, type ChangeActions } from '../../engine/appliers/change-router.js';
import type { CommandTemplate } from '../../engine/appliers/command-template.js';
import { fileDefinitionApplier } from '../../engine/appliers/definition-file.js';
import { objectDefinitionApplier } from '../../engine/appliers/definition-object.js';
import { manualApplier } from '../../engine/appliers/manual.js';
import { nodeFileApplier } from '../../engine/appliers/node-files.js';
import { nodeScheduling } from '../../engine/appliers/object-writer.js';
import { schedulingApplier } from '../../engine/appliers/node-scheduling.js';
import { applyObjectApplier, patchObjectApplier } from '../../engine/appliers/object-changes.js';
import type { EventSink } from '../../engine/events.js';
import { createGateRunner } from '../../engine/gates/gate-runner.js';
import { LEASE_NAMESPACE, type OwnershipInference } from '../../core/ownership/index.js';
import { clusterRefOf } from '../../engine/journal/journal-location.js';
import type { CommandRunner, GateReader } from '../../engine/ports.js';
import type { GateRun } from '../../engine/run-plan.js';
import { objectsFor, type Clusters } from './cluster-access.js';

export interface ExecutionSettings {
  readonly cwd: string;
  readonly clock: Clock;
  readonly random?: Random;
  readonly signal?: AbortSignal;
  readonly notify?: EventSink;
  readonly confirm: Confirm;
  readonly manualDone: ReadonlySet<StepId>;
  readonly transforms?: StepTransforms;
  readonly runner: CommandRunner;
  /** The rollout command's timeout, and its program when --rke-binary overrides the distribution's. */
  readonly rke: { readonly binary?: string; readonly timeoutMs: number };
  readonly nodeFiles: {
    readonly manifestsOut?: string;
    readonly nodeCommand?: CommandTemplate;
    readonly nodeDeleteCommand?: CommandTemplate;
    readonly timeoutMs: number;
  };
  readonly gateTimeoutScale: number;
  readonly inference?: OwnershipInference;
  /** Rollback: restore fields someone edited since the step. */
  readonly force?: boolean;
  /** promise-kept: breaches that ended by then (ms) were acknowledged (--accept-gap). */
  readonly acceptedUntil?: number;
}

export interface Execution extends ChangeActions {
  readonly runGate: (input: Parameters<ReturnType<typeof createGateRunner>>[0]) => Promise<GateRun>;
  readonly reader: GateReader;
}

export function wireExecution(
  plan: MigrationPlan,
  clusters: Clusters,
  settings: ExecutionSettings,
): Execution {
  const objects = objectsFor(clusters);
  const facts = planFacts(plan);
  const selector = controlPlaneSelectorFor(plan);
  const object = settings.transforms?.object;
  const text = settings.transforms?.text;
  const clusterDeps = {
    objectsFor: objects,
    confirm: settings.confirm,
    manualDone: settings.manualDone,
    ...(settings.notify ? { notify: settings.notify } : {}),
    ...(object ? { transform: object } : {}),
  };
  const reader = new KubeGateReader(clusters.downstream, clusters.management);
  const appliers: Appliers = {
    objectDefinition: objectDefinitionApplier({
      objectsFor: objects,
      ...(object ? { transform: object } : {}),
    }),
    ...(facts.rollout.type === 'command'
      ? {
          fileDefinition: fileDefinitionApplier({
            cwd: settings.cwd,
            clock: settings.clock,
            files: localFiles,
            runner: settings.runner,
            rollout: {
              binary: settings.rke.binary ?? facts.rollout.command[0],
              args: facts.rollout.command.slice(1),
            },
            timeoutMs: settings.rke.timeoutMs,
            ...(object ? { transform: object } : {}),
            ...(text ? { transformText: text } : {}),
          }),
        }
      : {}),
    nodeFile: nodeFileApplier({
      ...clusterDeps,
      controlPlaneNodes: async () => (await nodeScheduling(clusters.downstream, selector)).map((n) => n.name),
      runner: settings.runner,
      files: localFiles,
      timeoutMs: settings.nodeFiles.timeoutMs,
      ...(settings.nodeFiles.manifestsOut ? { manifestsOut: settings.nodeFiles.manifestsOut } : {}),
      ...(settings.nodeFiles.nodeCommand ? { nodeCommand: settings.nodeFiles.nodeCommand } : {}),
      ...(settings.nodeFiles.nodeDeleteCommand
        ? { nodeDeleteCommand: settings.nodeFiles.nodeDeleteCommand }
        : {}),
      leases: () => reader.leases(LEASE_NAMESPACE),
      leaseObjects: clusters.downstream,
      staticPods: {
        clock: settings.clock,
        pods: (component) => reader.componentPods(component),
        timeoutMs: 5 * 60_000 * settings.gateTimeoutScale,
        ...(settings.signal ? { signal: settings.signal } : {}),
      },
    }),
    patchObject: patchObjectApplier(clusterDeps),
    applyObject: applyObjectApplier(clusterDeps),
    scheduling: schedulingApplier(clusterDeps),
    manual: manualApplier(clusterDeps),
  };
  const clusterRef = clusterRefOf(plan);
  const accepted = settings.acceptedUntil !== undefined ? { acceptedUntil: settings.acceptedUntil } : {};
  const runGate = createGateRunner({
    reader,
    clock: settings.clock,
    context: { facts, controlPlaneSelector: selector, ...(clusterRef ? { clusterRef } : {}), ...accepted },
    timeoutScale: settings.gateTimeoutScale,
    ...(settings.inference ? { inference: settings.inference } : {}),
    ...(settings.random ? { random: settings.random } : {}),
    ...(settings.signal ? { signal: settings.signal } : {}),
    ...(settings.notify ? { notify: settings.notify } : {}),
  });
  return { ...changeActions(appliers, { force: settings.force ?? false }), runGate, reader };
}
