/**
 * A gate is judged in two halves: `readGateSnapshot` reads the few facts the gate needs through a GateReader
 * (I/O), and `evaluateGate` judges them (pure, tested with plain data).
 */
import type { DistroFacts } from '../../core/distros/distro.js';
import type { Gate, ObjectRef, StepId } from '../../core/model/plan-types.js';
import { assertNever, InternalError } from '../../errors/index.js';
import type { LeaseRecord, LoadBalancerRecord } from '../journal/journal-schema.js';
import { evaluateRbacAllows, splitResource } from './access.js';
import { evaluateCcmStaticPods } from './ccm-static-pods.js';
import { evaluateClusterRolledOut } from './cluster-rollout.js';
import { evaluateControlPlaneFlags } from './control-plane-flags.js';
import { evaluateDaemonSetRollout } from './daemonset-rollout.js';
import { evaluateKubernetesVersion, type VersionFacts } from './kubernetes-version.js';
import type {
  AccessAnswer,
  ClusterObjectFacts,
  ComponentPodFacts,
  DaemonSetFacts,
  GateReader,
  LeaseFacts,
  ManagerComponent,
  NodeFacts,
  ServiceFacts,
} from './gate-facts.js';
import { pass, type GateVerdict } from './gate-verdict.js';
import {
  appendLeaseLooks,
  LEASE_NAMESPACE,
  type ComponentPods,
  type MigrationHistory,
  type OwnershipInference,
} from '../../core/ownership/index.js';
import { evaluateMigrationLeaseHeld } from './lease-holder.js';
import { evaluateLoadBalancersKept } from './load-balancers.js';
import { evaluateNodesCordoned, evaluateNodesInitialized } from './node-gates.js';
import { evaluateNoOwnershipOverlap } from './ownership.js';
import { evaluatePromiseKept } from './promise-kept.js';

export interface GateContext {
  /** What the distribution says about its control plane and rollouts (its planner's facts). */
  readonly facts: DistroFacts;
  /** Label selector of the control-plane nodes (distribution-specific). */
  readonly controlPlaneSelector: string;
  /** The Rancher provisioning Cluster, for cluster-rolled-out on RKE2. */
  readonly clusterRef?: ObjectRef;
  /** LoadBalancer services recorded before the first step. */
  readonly baseline: readonly LoadBalancerRecord[];
  /** The lease timeline observed so far (journal plus this run). */
  readonly timeline: readonly LeaseRecord[];
  readonly inference?: OwnershipInference;
  /** The journal's plan and step records: what each manager may have run when (for no-ownership-overlap). */
  readonly history?: MigrationHistory;
  /** The step whose gates these are: promise-kept judges its window. */
  readonly step?: StepId;
  /** promise-kept: breaches that ended by then (ms) were acknowledged (--accept-gap). */
  readonly acceptedUntil?: number;
}

export type GateSnapshot =
  | { readonly type: 'daemonset-rolled-out'; readonly daemonSet: DaemonSetFacts | undefined }
  | { readonly type: 'nodes-cordoned'; readonly nodes: readonly NodeFacts[] }
  | { readonly type: 'migration-lease-held'; readonly leases: readonly LeaseFacts[] }
  | {
      readonly type: 'control-plane-flags';
      readonly nodes: readonly NodeFacts[];
      readonly pods: readonly ComponentPodFacts[];
    }
  | {
      readonly type: 'ccm-static-pods';
      readonly nodes: readonly NodeFacts[];
      readonly pods: readonly ComponentPodFacts[];
    }
  | { readonly type: 'cluster-rolled-out'; readonly cluster: ClusterObjectFacts | undefined }
  | ({ readonly type: 'kubernetes-version' } & VersionFacts)
  | { readonly type: 'nodes-initialized'; readonly nodes: readonly NodeFacts[] }
  | { readonly type: 'load-balancers-kept'; readonly services: readonly ServiceFacts[] }
  | {
      readonly type: 'no-ownership-overlap' | 'promise-kept';
      /** The managers' pods, to tell which configuration each lease holder runs; undefined when unreadable. */
      readonly pods?: ComponentPods;
    }
  | {
      readonly type: 'rbac-allows';
      readonly answers: readonly { readonly verb: string; readonly answer: AccessAnswer }[];
    };

export async function readGateSnapshot(
  gate: Gate,
  reader: GateReader,
  ctx: GateContext,
): Promise<GateSnapshot> {
  switch (gate.type) {
    case 'daemonset-rolled-out':
      return { type: gate.type, daemonSet: await reader.daemonSet(gate.namespace, gate.name) };
    case 'nodes-cordoned':
      return { type: gate.type, nodes: await reader.nodes(gate.selector) };
    case 'migration-lease-held':
      return { type: gate.type, leases: await reader.leases(LEASE_NAMESPACE) };
    case 'control-plane-flags':
      if (!ctx.facts.managerPods.readable) return { type: gate.type, nodes: [], pods: [] };
      return {
        type: gate.type,
        nodes: await reader.nodes(ctx.controlPlaneSelector),
        pods: await managerPods(reader, ctx, 'kube-controller-manager'),
      };
    case 'ccm-static-pods':
      return {
        type: gate.type,
        nodes: await reader.nodes(ctx.controlPlaneSelector),
        pods: await reader.componentPods('cloud-controller-manager'),
      };
    case 'cluster-rolled-out':
      return {
        type: gate.type,
        cluster:
          ctx.facts.rollout.type === 'cluster-object' && ctx.clusterRef
            ? await reader.clusterObject(ctx.clusterRef)
            : undefined,
      };
    case 'kubernetes-version':
      return {
        type: gate.type,
        ...(await readVersionFacts(reader, ctx, gate.expect.imageTag !== undefined)),
      };
    case 'nodes-initialized':
      return { type: gate.type, nodes: await reader.nodes() };
    case 'load-balancers-kept':
      return {
        type: gate.type,
        services: ctx.baseline.length > 0 ? await reader.loadBalancerServices() : [],
      };
    case 'no-ownership-overlap':
    case 'promise-kept': {
      try {
        const pods: ComponentPods = {
          'kube-controller-manager': await managerPods(reader, ctx, 'kube-controller-manager'),
          'cloud-controller-manager': await managerPods(reader, ctx, 'cloud-controller-manager'),
        };
        return { type: gate.type, pods };
      } catch (error) {
        if (error instanceof DOMException && error.name === 'AbortError') throw error;
        // The pods only sharpen the judgement: without them every holder is judged by the plan, more strictly.
        return { type: gate.type };
      }
    }
    case 'rbac-allows': {
      const { resource, group } = splitResource(gate.resource);
      const answers = [];
      for (const verb of gate.verbs) {
        const answer = await reader.canI({
          user: gate.user,
          verb,
          group,
          resource,
          namespace: gate.namespace,
          name: gate.resourceName,
        });
        answers.push({ verb, answer });
      }
      return { type: gate.type, answers };
    }
    default:
      return assertNever(gate, 'gate type');
  }
}

async function readVersionFacts(reader: GateReader, ctx: GateContext, pods: boolean): Promise<VersionFacts> {
  const nodes = await reader.nodes();
  const { gitVersion } = await reader.serverVersion();
  if (!pods) return { nodes, controlPlane: [], gitVersion, pods: [] };
  return {
    nodes,
    controlPlane: await reader.nodes(ctx.controlPlaneSelector),
    gitVersion,
    pods: await reader.controlPlanePods(),
  };
}

/** A manager's pods; a KCM that runs as no pod (RKE: a Docker container) has none. */
async function managerPods(
  reader: GateReader,
  ctx: GateContext,
  component: ManagerComponent,
): Promise<readonly ComponentPodFacts[]> {
  if (!ctx.facts.managerPods.readable && component === 'kube-controller-manager') return [];
  return reader.componentPods(component);
}

/** Pure: the verdict of one look at a gate. */
export function evaluateGate(gate: Gate, snapshot: GateSnapshot, ctx: GateContext, now: number): GateVerdict {
  if (snapshot.type !== gate.type) throw mismatch(snapshot.type, gate.type);
  switch (gate.type) {
    case 'daemonset-rolled-out':
      return evaluateDaemonSetRollout(snapshotOf(snapshot, gate.type).daemonSet, gate);
    case 'nodes-cordoned':
      return evaluateNodesCordoned(snapshotOf(snapshot, gate.type).nodes, gate.selector);
    case 'migration-lease-held':
      return evaluateMigrationLeaseHeld(snapshotOf(snapshot, gate.type).leases, gate, now);
    case 'control-plane-flags': {
      const s = snapshotOf(snapshot, gate.type);
      return evaluateControlPlaneFlags(ctx.facts, s.nodes, s.pods, gate.expect, ctx.controlPlaneSelector);
    }
    case 'ccm-static-pods': {
      const s = snapshotOf(snapshot, gate.type);
      return evaluateCcmStaticPods(s.nodes, s.pods, gate.expect, ctx.controlPlaneSelector);
    }
    case 'cluster-rolled-out':
      return evaluateClusterRolledOut(
        ctx.facts,
        snapshotOf(snapshot, gate.type).cluster,
        ctx.clusterRef?.name ?? '(unknown)',
      );
    case 'kubernetes-version':
      return evaluateKubernetesVersion(
        snapshotOf(snapshot, gate.type),
        gate.expect,
        ctx.controlPlaneSelector,
      );
    case 'nodes-initialized':
      return evaluateNodesInitialized(snapshotOf(snapshot, gate.type).nodes);
    case 'load-balancers-kept':
      if (ctx.baseline.length === 0)
        return pass('no LoadBalancer services were recorded before the migration');
      return evaluateLoadBalancersKept(ctx.baseline, snapshotOf(snapshot, gate.type).services);
    case 'no-ownership-overlap': {
      const { pods } = snapshotOf(snapshot, gate.type);
      return evaluateNoOwnershipOverlap(ctx.timeline, ctx.inference, {
        now,
        ...(pods ? { pods } : {}),
        ...(ctx.history ? { history: ctx.history } : {}),
      });
    }
    case 'promise-kept': {
      const { pods } = snapshotOf(snapshot, gate.type);
      return evaluatePromiseKept({
        timeline: appendLeaseLooks([], ctx.timeline).timeline,
        evidence: { now, ...(pods ? { pods } : {}), ...(ctx.history ? { history: ctx.history } : {}) },
        ...(ctx.step ? { step: ctx.step } : {}),
        ...(ctx.acceptedUntil !== undefined ? { acceptedUntil: ctx.acceptedUntil } : {}),
      });
    }
    case 'rbac-allows':
      return evaluateRbacAllows(gate, snapshotOf(snapshot, gate.type).answers);
    default:
      return assertNever(gate, 'gate type');
  }
}

/** Narrows the snapshot to the gate's own type (checked against the gate at the top of evaluateGate). */
function snapshotOf<T extends GateSnapshot['type']>(
  snapshot: GateSnapshot,
  type: T,
): Extract<GateSnapshot, { type: T }> {
  if (snapshot.type !== type) throw mismatch(snapshot.type, type);
  return snapshot as Extract<GateSnapshot, { type: T }>;
}

function mismatch(snapshot: string, gate: string): InternalError {
  return new InternalError(
    `snapshot ${snapshot} given for gate ${gate}; this should not happen, please report it`,
  );
}

/** Whether a gate has a deadline (every gate except the one-shot timeline check). */
export function gateTimeoutSeconds(gate: Gate): number | undefined {
  return 'timeoutSeconds' in gate ? gate.timeoutSeconds : undefined;
}

export function describeGate(gate: Gate): string {
  switch (gate.type) {
    case 'daemonset-rolled-out':
      return `daemonset ${gate.namespace}/${gate.name} rolled out`;
    case 'nodes-cordoned':
      return `nodes ${gate.selector} cordoned`;
    case 'migration-lease-held':
      return `lease ${gate.leaseName} held by ${gate.by}`;
    case 'control-plane-flags':
      return `kube-controller-manager flags: --cloud-provider=${gate.expect.cloudProvider}, leader migration ${gate.expect.kcmLeaderMigration ? 'on' : 'off'}`;
    case 'ccm-static-pods':
      return `cloud-controller-manager static pods${gate.expect.imageTag ? ` ${gate.expect.imageTag}` : ''} running on every control-plane node`;
    case 'cluster-rolled-out':
      return 'cluster rolled out';
    case 'kubernetes-version':
      return `every node, the API server${gate.expect.imageTag ? ' and the control-plane pods' : ''} run ${gate.expect.gitVersion}`;
    case 'nodes-initialized':
      return 'every node initialized (providerID, no uninitialized taint)';
    case 'load-balancers-kept':
      return 'load balancers kept';
    case 'no-ownership-overlap':
      return 'no controller ownership overlap';
    case 'promise-kept':
      return 'promise kept (no overlap, no gap past the lease bound)';
    case 'rbac-allows':
      return `${gate.user} may ${gate.verbs.join('/')} ${gate.resource} ${gate.resourceName}`;
    default:
      return assertNever(gate, 'gate type');
  }
}
