/**
 * provider-ids: every Node should carry `aws:///<az>/<instance-id>` naming its own live instance. The CCM's
 * cloud-node-lifecycle controller asks EC2 about the providerID's instance and deletes Nodes whose instance
 * is gone; a providerID from another provider (`rke2://…`) cannot be parsed at all, and spec.providerID is
 * immutable once set. A missing providerID can still be set once (the CCM only does it for nodes carrying
 * the uninitialized taint, which existing nodes do not).
 */
import { fail, node, pass, skip, warn, type CheckResult, type Fix } from './check-result.js';
import {
  awsSkipReason,
  nodesSkipReason,
  plural,
  type CheckContext,
  type NodeInstance,
} from './check-context.js';
import { canonicalProviderId } from './facts/provider-id.js';

const ID = 'provider-ids';

interface Finding {
  readonly ni: NodeInstance;
  readonly severity: 'fail' | 'warn';
  readonly text: string;
  /** A providerID to set (only for nodes that have none). */
  readonly set?: string;
}

export function checkProviderIds(ctx: CheckContext): CheckResult {
  const reason = nodesSkipReason(ctx) ?? awsSkipReason(ctx);
  if (reason || !ctx.nodeInstances) return skip(ID, reason ?? 'no instances');
  const findings = ctx.nodeInstances.map(judge).filter((f): f is Finding => f !== undefined);
  const total = ctx.nodeInstances.length;
  if (findings.length === 0)
    return pass(ID, `all ${plural(total, 'node')} have aws:///<az>/<instance-id> matching their instance`);
  const failing = findings.filter((f) => f.severity === 'fail');
  const resources = findings.map((f) => node(f.ni.node.name));
  const details = findings.map((f) => `${f.ni.node.name}: ${f.text}`);
  const fixes: Fix[] = [];
  const settable = findings.filter((f) => f.set);
  if (settable.length > 0) {
    fixes.push({
      type: 'commands',
      description: 'set the missing providerIDs (allowed once, while spec.providerID is empty)',
      commands: settable.map(
        (f) => `kubectl patch node ${f.ni.node.name} -p '${JSON.stringify({ spec: { providerID: f.set } })}'`,
      ),
    });
  }
  const immutable = findings.filter((f) => !f.set);
  if (immutable.length > 0) {
    fixes.push({
      type: 'manual',
      description:
        'spec.providerID cannot be changed: re-register these nodes (drain, delete the Node, restart the kubelet with the in-tree or external provider so it registers aws:///<az>/<id>) or replace the machines',
      steps: immutable
        .slice(0, 20)
        .map(
          (f) =>
            `kubectl drain ${f.ni.node.name} --ignore-daemonsets && kubectl delete node ${f.ni.node.name}  # ${f.text}`,
        ),
    });
  }
  const message = `${findings.length} of ${plural(total, 'node')} ${findings.length === 1 ? 'has' : 'have'} providerID problems`;
  return failing.length > 0
    ? fail(ID, `${message}; the CCM cannot map ${plural(failing.length, 'node')} to a live instance`, fixes, {
        resources,
        details,
      })
    : warn(ID, message, fixes, { resources, details });
}

function judge(ni: NodeInstance): Finding | undefined {
  const pid = ni.providerId;
  const single = ni.byName.length === 1 ? ni.byName[0] : undefined;
  if (!pid) {
    return single
      ? {
          ni,
          severity: 'warn',
          text: `no providerID; its name resolves to ${single.instanceId}`,
          set: canonicalProviderId(single.availabilityZone, single.instanceId),
        }
      : { ni, severity: 'fail', text: 'no providerID, and its name does not resolve to one instance' };
  }
  switch (pid.kind) {
    case 'fargate':
      return undefined;
    case 'invalid':
      return {
        ni,
        severity: 'fail',
        text: `providerID ${ni.node.providerID} cannot be read by the CCM: ${pid.reason}`,
      };
    case 'instance': {
      const instance = ni.byProviderId;
      if (!instance) {
        return {
          ni,
          severity: 'fail',
          text: `providerID names ${pid.instanceId}, which does not exist; cloud-node-lifecycle would delete the Node`,
        };
      }
      if (instance.state === 'terminated' || instance.state === 'shutting-down') {
        return {
          ni,
          severity: 'fail',
          text: `providerID names ${pid.instanceId}, which is ${instance.state}`,
        };
      }
      if (single && single.instanceId !== pid.instanceId) {
        return {
          ni,
          severity: 'fail',
          text: `providerID names ${pid.instanceId} but the node name resolves to ${single.instanceId}`,
        };
      }
      if (!pid.canonical) {
        return {
          ni,
          severity: 'warn',
          text: `providerID ${ni.node.providerID} is accepted but not canonical (${canonicalProviderId(instance.availabilityZone, instance.instanceId)})`,
        };
      }
      if (pid.zone !== instance.availabilityZone) {
        return {
          ni,
          severity: 'warn',
          text: `providerID zone ${pid.zone} differs from the instance's ${instance.availabilityZone}`,
        };
      }
      return undefined;
    }
  }
}
