/**
 * Assembles what the executor and rollback need from the adapters: the appliers for every change type, the
 * gate runner, and the journal store with its local mirror.
 */
import type { Clock, Random } from '../../clock/index.js';
import type { MigrationPlan, StepId } from '../../core/plan/plan-types.js';
import { nodeScheduling } from '../../adapters/kube/object-writer.js';
import { KubeGateReader } from '../../adapters/kube/gate-reader.js';
import type { CommandTemplate } from '../../adapters/process/command-template.js';
import type { CommandRunner } from '../../adapters/process/run-command.js';
import type { Confirm, StepTransforms } from '../appliers/applier-types.js';
import {
  applyObjectApplier,
  manualApplier,
  patchObjectApplier,
  schedulingApplier,
} from '../appliers/cluster.js';
import { changeActions, type Appliers, type ChangeActions } from '../appliers/change-router.js';
import { nodeFileApplier } from '../appliers/kubeadm.js';
import { rkeApplier } from '../appliers/rke.js';
import { rke2Applier } from '../appliers/rke2.js';
import type { EventSink } from '../events.js';
import { createGateRunner } from '../gates/gate-runner.js';
import type { OwnershipInference } from '../gates/ownership.js';
import type { GateRun } from '../run-plan.js';
import { objectsFor, type Clusters } from './cluster-access.js';
import { clusterRefOf, controlPlaneSelectorFor } from './journal-location.js';

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
  readonly rke: { readonly binary: string; readonly timeoutMs: number };
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
}

export interface Execution extends ChangeActions {
  readonly runGate: (input: Parameters<ReturnType<typeof createGateRunner>>[0]) => Promise<GateRun>;
  readonly reader: KubeGateReader;
}

export function wireExecution(
  plan: MigrationPlan,
  clusters: Clusters,
  settings: ExecutionSettings,
): Execution {
  const objects = objectsFor(clusters);
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
    objectDefinition: rke2Applier({ objectsFor: objects, ...(object ? { transform: object } : {}) }),
    fileDefinition: rkeApplier({
      cwd: settings.cwd,
      clock: settings.clock,
      runner: settings.runner,
      binary: settings.rke.binary,
      timeoutMs: settings.rke.timeoutMs,
      ...(object ? { transform: object } : {}),
      ...(text ? { transformText: text } : {}),
    }),
    nodeFile: nodeFileApplier({
      ...clusterDeps,
      controlPlaneNodes: async () => (await nodeScheduling(clusters.downstream, selector)).map((n) => n.name),
      runner: settings.runner,
      timeoutMs: settings.nodeFiles.timeoutMs,
      ...(settings.nodeFiles.manifestsOut ? { manifestsOut: settings.nodeFiles.manifestsOut } : {}),
      ...(settings.nodeFiles.nodeCommand ? { nodeCommand: settings.nodeFiles.nodeCommand } : {}),
      ...(settings.nodeFiles.nodeDeleteCommand
        ? { nodeDeleteCommand: settings.nodeFiles.nodeDeleteCommand }
        : {}),
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
  const runGate = createGateRunner({
    reader,
    clock: settings.clock,
    context: { distro: plan.distro, controlPlaneSelector: selector, ...(clusterRef ? { clusterRef } : {}) },
    timeoutScale: settings.gateTimeoutScale,
    ...(settings.inference ? { inference: settings.inference } : {}),
    ...(settings.random ? { random: settings.random } : {}),
    ...(settings.signal ? { signal: settings.signal } : {}),
    ...(settings.notify ? { notify: settings.notify } : {}),
  });
  return { ...changeActions(appliers, { force: settings.force ?? false }), runGate, reader };
}
