/**
 * `uproot verify` as a library call: proves the end state of a migration, once, read-only. Every node's
 * providerID names its own EC2 instance (checked against EC2 when it can be read), no node carries the
 * uninitialized taint, the CCM DaemonSet is rolled out with the expected args, kube-controller-manager runs
 * no cloud controllers (--cloud-provider=external, no leader migration), the load balancers recorded before
 * the migration are kept, and the lease timeline shows no ownership overlap.
 */
import type { Clock, Random } from '../clock/index.js';
import { parseProviderId, nodeNameLookup } from '../core/checks/facts/provider-id.js';
import type { Distro } from '../core/model/plan-types.js';
import { ExitCode } from '../errors/index.js';
import { ec2Instances, type InstanceFact, type InstanceReader } from '../adapters/aws/instance-reader.js';
import { KubeGateReader } from '../adapters/kube/gate-reader.js';
import { ConfigMapJournalStore } from '../adapters/kube/journal-store.js';
import { evaluateControlPlaneFlags } from '../engine/gates/control-plane-flags.js';
import type { NodeFacts } from '../engine/gates/gate-facts.js';
import { someNames } from '../engine/gates/gate-verdict.js';
import { evaluateLoadBalancersKept } from '../engine/gates/load-balancers.js';
import { evaluateNodesInitialized } from '../engine/gates/node-gates.js';
import type { OwnershipInference } from '../core/ownership/index.js';
import { evaluateNoOwnershipOverlap } from '../engine/gates/ownership.js';
import { readOwnershipEvidence } from './ownership-evidence.js';
import { evaluateGate, readGateSnapshot } from '../engine/gates/evaluate-gate.js';
import type { GateReader } from '../engine/ports.js';
import type { Journal } from '../engine/journal/journal-schema.js';
import type { GateContext } from '../engine/gates/evaluate-gate.js';
import type { Connect } from './session/cluster-access.js';
import { connectJournalSession, requireRancherCluster } from './session/journal-session.js';
import { distroFromNodes } from '../core/checks/facts/cluster-profile.js';
import { controlPlaneSelectorFor, distroFacts } from '../core/distros/distro-facts.js';
import { ccmRunning } from './verify-ccm.js';
import { fromVerdict, type VerifyCheck } from './verify-check.js';
export type { CheckStatus, VerifyCheck } from './verify-check.js';
import type { RunHost } from './session/run-settings.js';
import { validateTargets, type TargetFlags } from './targets.js';

export const VERIFY_SCHEMA_VERSION = 'uproot.dev/verify/v1';

export interface VerifyOptions extends TargetFlags {
  /** The distribution, when there is no journal to say (default kubeadm's conventions). */
  readonly distro?: Distro;
  readonly region?: string;
  /** NAMESPACE/NAME of the CCM DaemonSet (default: from the plan, else kube-system/aws-cloud-controller-manager). */
  readonly ccmDaemonSet?: string;
}

export type { InstanceFact, InstanceReader } from '../adapters/aws/instance-reader.js';

export interface VerifyDeps {
  readonly clock?: Clock;
  readonly random?: Random;
  readonly connect?: Connect;
  /** EC2 access (default: the AWS SDK with the host's environment); providerIDs are compared with it. */
  readonly instances?: InstanceReader;
  readonly inference?: OwnershipInference;
}

export interface VerifyReport {
  readonly schemaVersion: typeof VERIFY_SCHEMA_VERSION;
  /** `incomplete`: nothing failed, but a check the migration needs could not run (see its detail). */
  readonly outcome: 'pass' | 'fail' | 'incomplete';
  readonly journal: 'cluster' | 'none';
  readonly checks: readonly VerifyCheck[];
}

export async function verify(
  options: VerifyOptions,
  host: RunHost,
  deps: VerifyDeps = {},
): Promise<{ report: VerifyReport; exitCode: ExitCode }> {
  validateTargets(options);
  const session = connectJournalSession(options, host, deps);
  const { clock, clusters, location, journalObjects } = session;
  const journal = await new ConfigMapJournalStore(journalObjects, location).load();
  if (!journal) await requireRancherCluster(session);
  const reader = new KubeGateReader(clusters.downstream, clusters.management);
  const nodes = await reader.nodes();
  const distro: Distro = journal?.cluster.distro ?? options.distro ?? detectedDistro(nodes);

  const checks: VerifyCheck[] = [];
  checks.push(await providerIds(nodes, options, host, deps));
  checks.push(
    fromVerdict(
      'nodes-initialized',
      'no node carries the uninitialized taint',
      evaluateNodesInitialized(nodes),
    ),
  );
  const facts = distroFacts(distro);
  const selector = journal ? controlPlaneSelectorFor(journal.plan) : facts.controlPlaneSelector;
  const cpNodes = facts.managerPods.readable ? await reader.nodes(selector) : [];
  checks.push(await ccmRunning(clusters.downstream, reader, journal, options, { distro, cpNodes }));
  const kcmPods = facts.managerPods.readable ? await reader.componentPods('kube-controller-manager') : [];
  const kcmVerdict = fromVerdict(
    'kcm-external',
    KCM_EXTERNAL_TITLE,
    evaluateControlPlaneFlags(
      facts,
      cpNodes,
      kcmPods,
      { cloudProvider: 'external', kcmLeaderMigration: false },
      selector,
    ),
  );
  checks.push(
    (kcmVerdict.status === 'skip' && journal && appliedExternalFlags(journal, kcmVerdict.detail)) ||
      kcmVerdict,
  );
  if (journal) {
    const services = journal.baseline.loadBalancers.length > 0 ? await reader.loadBalancerServices() : [];
    checks.push(
      journal.baseline.loadBalancers.length === 0
        ? {
            id: 'load-balancers-kept',
            title: 'load balancers kept',
            status: 'pass',
            detail: 'no LoadBalancer services were recorded before the migration',
          }
        : fromVerdict(
            'load-balancers-kept',
            'load balancers kept',
            evaluateLoadBalancersKept(journal.baseline.loadBalancers, services),
          ),
    );
    const version = await kubernetesVersion(journal, reader, { facts, selector, now: clock.now() });
    if (version) checks.push(version);
    checks.push(
      fromVerdict(
        'no-ownership-overlap',
        'no controller ownership overlap',
        evaluateNoOwnershipOverlap(
          journal.leaseTimeline,
          deps.inference,
          await readOwnershipEvidence(journal, reader, clock.now()),
        ),
      ),
    );
  } else {
    const why = 'no migration journal: nothing was recorded before the migration to compare with';
    checks.push({ id: 'load-balancers-kept', title: 'load balancers kept', status: 'skip', detail: why });
    checks.push({
      id: 'no-ownership-overlap',
      title: 'no controller ownership overlap',
      status: 'skip',
      detail: why,
    });
  }
  const outcome = outcomeOf(checks);
  return {
    report: { schemaVersion: VERIFY_SCHEMA_VERSION, outcome, journal: journal ? 'cluster' : 'none', checks },
    exitCode: outcome === 'pass' ? ExitCode.ok : ExitCode.failed,
  };
}

/** Verified only with evidence: a check that could not run leaves the end state unproven (exit 1), never passed. */
export function outcomeOf(checks: readonly VerifyCheck[]): VerifyReport['outcome'] {
  if (checks.some((c) => c.status === 'fail')) return 'fail';
  return checks.some((c) => c.status === 'skip') ? 'incomplete' : 'pass';
}

/** Without a journal or --distro: the distribution the nodes name, as preflight finds it; else kubeadm's conventions. */
function detectedDistro(nodes: readonly NodeFacts[]): Distro {
  const marked = distroFromNodes(nodes)?.distro;
  return marked === 'rke2' || marked === 'rke' ? marked : 'kubeadm';
}

/**
 * A plan that changes the Kubernetes version: the cluster runs the release of the last version step uproot
 * verified, judged by that step's own kubernetes-version gate (every kubelet, /version, the control-plane
 * pods). Undefined when the plan keeps the version.
 */
async function kubernetesVersion(
  journal: Journal,
  reader: GateReader,
  where: { readonly facts: GateContext['facts']; readonly selector: string; readonly now: number },
): Promise<VerifyCheck | undefined> {
  const upgrades = journal.plan.kubernetes.upgrades ?? [];
  if (upgrades.length === 0) return undefined;
  const id = 'kubernetes-version' as const;
  const target = journal.plan.kubernetes.target;
  const verified = upgrades.filter((u) =>
    journal.steps.some((s) => s.id === u.step && s.state === 'verified'),
  );
  const last = verified.at(-1);
  const gate = journal.plan.steps
    .find((s) => s.id === last?.step)
    ?.gates.find((g) => g.type === 'kubernetes-version');
  if (!last || !gate) {
    return {
      id,
      title: `the cluster runs the Kubernetes release of its last verified version step`,
      status: 'skip',
      detail: `no version step is verified yet (the plan moves the cluster to ${target})`,
    };
  }
  const ctx: GateContext = {
    facts: where.facts,
    controlPlaneSelector: where.selector,
    baseline: journal.baseline.loadBalancers,
    timeline: journal.leaseTimeline,
  };
  const verdict = evaluateGate(gate, await readGateSnapshot(gate, reader, ctx), ctx, where.now);
  const still = last.version === target ? '' : `; the plan continues to ${target}`;
  const check = fromVerdict(id, `the cluster runs ${last.version} (${last.step})${still}`, verdict);
  return check.status === 'pass' ? { ...check, detail: `${check.detail}${still}` } : check;
}

function regionOf(options: VerifyOptions, host: RunHost, nodes: readonly NodeFacts[]): string | undefined {
  if (options.region) return options.region;
  const env = host.env.AWS_REGION ?? host.env.AWS_DEFAULT_REGION;
  if (env) return env;
  for (const n of nodes) {
    const label = n.labels['topology.kubernetes.io/region'];
    if (label) return label;
  }
  for (const n of nodes) {
    const pid = n.providerID ? parseProviderId(n.providerID) : undefined;
    if (pid?.kind === 'instance' && pid.zone && /^[a-z]{2}(-[a-z]+)+-\d[a-z]$/.test(pid.zone))
      return pid.zone.slice(0, -1);
  }
  return undefined;
}

async function providerIds(
  nodes: readonly NodeFacts[],
  options: VerifyOptions,
  host: RunHost,
  deps: VerifyDeps,
): Promise<VerifyCheck> {
  const id = 'provider-ids' as const;
  const title = "every node's providerID names its own EC2 instance";
  const bad: string[] = [];
  const byInstance = new Map<string, { node: NodeFacts; zone?: string }>();
  for (const node of nodes) {
    if (!node.providerID) {
      bad.push(`${node.name} (no providerID)`);
      continue;
    }
    const pid = parseProviderId(node.providerID);
    if (pid.kind === 'invalid') bad.push(`${node.name} (${node.providerID}: ${pid.reason})`);
    else if (pid.kind === 'instance')
      byInstance.set(pid.instanceId, { node, ...(pid.zone ? { zone: pid.zone } : {}) });
  }
  const fix =
    'a providerID cannot be changed once set: delete the Node object and let the kubelet register it again, so the CCM initializes it with aws:///<zone>/<instance-id>';
  if (bad.length > 0)
    return {
      id,
      title,
      status: 'fail',
      detail: `${bad.length} node(s) have no usable providerID: ${someNames(bad)}`,
      fix,
    };
  const region = regionOf(options, host, nodes);
  if (!region) {
    return {
      id,
      title,
      status: 'skip',
      detail: `all ${nodes.length} providerIDs are aws:///<zone>/<instance-id>, but EC2 was not read (no region: pass --region), so instances were not compared`,
    };
  }
  let instances: InstanceFact[];
  try {
    instances = await (deps.instances ?? ec2Instances(host.env))(region, [...byInstance.keys()]);
  } catch (error) {
    return {
      id,
      title,
      status: 'skip',
      detail: `EC2 could not be read (${error instanceof Error ? error.message : String(error)}); providerIDs were checked for form only`,
    };
  }
  const found = new Map(instances.map((i) => [i.instanceId, i]));
  for (const [instanceId, { node, zone }] of byInstance) {
    const instance = found.get(instanceId);
    const lookup = nodeNameLookup(node.name);
    if (!instance) bad.push(`${node.name} (${instanceId} does not exist in ${region})`);
    else if (instance.state === 'terminated') bad.push(`${node.name} (${instanceId} is terminated)`);
    else if (zone && instance.availabilityZone !== zone)
      bad.push(`${node.name} (zone ${zone}, the instance is in ${instance.availabilityZone})`);
    else if (lookup.by === 'instance-id' && lookup.instanceId !== instanceId)
      bad.push(`${node.name} (named after ${lookup.instanceId}, providerID says ${instanceId})`);
    else if (
      lookup.by === 'private-dns-name' &&
      instance.privateDnsName &&
      lookup.shape === 'aws-dns' &&
      instance.privateDnsName !== node.name
    ) {
      bad.push(`${node.name} (${instanceId} is ${instance.privateDnsName})`);
    }
  }
  if (bad.length > 0)
    return {
      id,
      title,
      status: 'fail',
      detail: `${bad.length} node(s) do not match their instance: ${someNames(bad)}`,
      fix,
    };
  return {
    id,
    title,
    status: 'pass',
    detail: `all ${nodes.length} nodes match their EC2 instance in ${region}`,
  };
}

const KCM_EXTERNAL_TITLE =
  'kube-controller-manager runs no cloud controllers (--cloud-provider=external, no leader migration)';

/**
 * Where the managers' flags cannot be read (RKE's Docker containers), the evidence is the step that applied
 * them: the plan's step whose control-plane-flags gate expects --cloud-provider=external without leader
 * migration, verified in the journal (its definition applied by `rke up`). Undefined without such a step.
 */
function appliedExternalFlags(journal: Journal, unreadable: string): VerifyCheck | undefined {
  const step = journal.plan.steps.find((s) =>
    s.gates.some(
      (g) =>
        g.type === 'control-plane-flags' &&
        g.expect.cloudProvider === 'external' &&
        !g.expect.kcmLeaderMigration,
    ),
  );
  const record = step && journal.steps.find((r) => r.id === step.id);
  if (!step || record?.state !== 'verified') return undefined;
  return {
    id: 'kcm-external',
    title: KCM_EXTERNAL_TITLE,
    status: 'pass',
    detail: `the flags are not readable here (${unreadable.replace(/^skipped /, '')}); step ${step.id} applied them and was verified at ${record.verifiedAt}`,
  };
}
