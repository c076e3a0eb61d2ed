/**
 * upgrade-path: settings that a later hop of the journey to `--target-version` breaks, found before the first
 * step. Two today, each judged only when the target reaches the release that breaks it:
 * - 1.33: kube-apiserver no longer has --cloud-provider or --cloud-config and exits with "unknown flag:
 *   --cloud-provider" (kubernetes/kubernetes#130162). Rancher's docs still recommend kube-apiserver-arg
 *   cloud-provider=external for RKE2 (rancher/rancher-docs#2281). RKE2 itself passes the flag up to 1.32 and
 *   stops at v1.33.0+rke2r1 (pkg/podexecutor/staticpod.go), so on RKE2 only kube-apiserver-arg counts.
 * - RKE2 1.36: cloud-provider-name no longer turns RKE2's own cloud controller off; only
 *   disable-cloud-controller does (rancher/rke2#10351, pkg/cli/cmds/root.go validateCloudProvider from
 *   v1.36.0+rke2r1; RKE2 docs: rancher/rke2-docs#616). Beside the aws-cloud-controller-manager it races to
 *   initialise nodes.
 * A cluster still on the in-tree provider gets both from uproot's plan for this target (the switch sets
 * disable-cloud-controller, the hop to 1.33 drops the flags), so for it the check says what the plan does; a
 * cluster already external is upgraded some other way, so it fails with the edit to make.
 */
import { pass, fail, type CheckResult, type Fix } from './check-result.js';
import { plural, type CheckContext } from './check-context.js';
import { parseFlags } from '../model/component-flags.js';

const ID = 'upgrade-path';
const CLOUD_FLAGS = ['cloud-provider', 'cloud-config'];

interface Finding {
  readonly problem: string;
  readonly fix: Fix;
  readonly handledByPlan: string;
}

export function checkUpgradePath(ctx: CheckContext): CheckResult {
  const target = ctx.profile.targetVersion;
  if (!target)
    return pass(ID, 'no --target-version: the migration keeps the version, so no later release is involved');
  if (ctx.profile.distro === 'rke') {
    return pass(ID, `RKE runs Kubernetes up to 1.31, below the releases that break settings (1.33)`);
  }
  const findings: Finding[] = [];
  const details: string[] = [];
  if (target.major === 1 && target.minor >= 33) {
    const found = apiserverCloudFlags(ctx);
    details.push(...found.map((f) => `${f.source}: ${f.args.join(' ')}`));
    if (found.length > 0) findings.push(apiserverFinding(ctx, found.length));
  }
  if (ctx.profile.distro === 'rke2' && target.major === 1 && target.minor >= 36) {
    const missing = cloudControllerNotDisabled(ctx);
    if (missing) {
      details.push(missing);
      findings.push(cloudControllerFinding());
    }
  }
  if (findings.length === 0) {
    return pass(ID, `nothing in the cluster breaks on the way to ${target.raw}`, { details });
  }
  if (stillInTree(ctx)) {
    return pass(
      ID,
      `${findings.map((f) => f.problem).join('; ')}: uproot's plan to ${target.raw} handles it (${findings.map((f) => f.handledByPlan).join('; ')})`,
      { details },
    );
  }
  return fail(
    ID,
    findings.map((f) => f.problem).join('; '),
    findings.map((f) => f.fix),
    { details },
  );
}

/** Every KCM still runs the in-tree provider: `uproot plan` makes a migration, with this journey, of it. */
function stillInTree(ctx: CheckContext): boolean {
  const kcm = ctx.profile.kcm;
  return (
    kcm.state === 'ok' &&
    kcm.value.length > 0 &&
    kcm.value.every((v) => v.flags.get('cloud-provider') === 'aws')
  );
}

interface FlagSource {
  readonly source: string;
  readonly args: readonly string[];
}

/**
 * Where kube-apiserver gets --cloud-provider/--cloud-config: RKE2's kube-apiserver-arg (the cluster
 * definition, else each server's rke2.io/node-args); elsewhere the kube-apiserver static pods.
 */
function apiserverCloudFlags(ctx: CheckContext): FlagSource[] {
  const cloud = (args: readonly string[]): string[] =>
    args.filter((a) => CLOUD_FLAGS.some((f) => a.replace(/^-+/, '').split('=')[0] === f));
  const definition = ctx.profile.definition;
  if (ctx.profile.distro === 'rke2') {
    if (definition?.distro === 'rke2') {
      const args = cloud(definition.roles['control-plane'].apiServerArgs);
      return args.length > 0 ? [{ source: `${definition.source} kube-apiserver-arg`, args }] : [];
    }
    return ctx.profile.controlPlane.flatMap((n) => {
      const args = cloud(nodeArgValues(n.annotations['rke2.io/node-args'], 'kube-apiserver-arg'));
      return args.length > 0 ? [{ source: `node ${n.name} rke2.io/node-args kube-apiserver-arg`, args }] : [];
    });
  }
  const pods = ctx.snapshot.kube.componentPods.state === 'ok' ? ctx.snapshot.kube.componentPods.value : [];
  return pods
    .filter((p) => p.component === 'kube-apiserver')
    .flatMap((p) => {
      const flags = parseFlags(p.args);
      const args = CLOUD_FLAGS.filter((f) => flags.has(f)).map((f) => `--${f}=${flags.get(f)}`);
      return args.length > 0 ? [{ source: `pod ${p.namespace}/${p.name}`, args }] : [];
    });
}

/** Every value of a repeated flag in RKE2's rke2.io/node-args (`["server","--kube-apiserver-arg","a=b",…]`). */
export function nodeArgValues(raw: string | undefined, flag: string): string[] {
  let args: unknown;
  try {
    args = raw ? JSON.parse(raw) : [];
  } catch {
    return [];
  }
  if (!Array.isArray(args)) return [];
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = String(args[i]);
    if (a === `--${flag}` && typeof args[i + 1] === 'string') out.push(String(args[++i]));
    else if (a.startsWith(`--${flag}=`)) out.push(a.slice(flag.length + 3));
  }
  return out;
}

function apiserverFinding(ctx: CheckContext, sources: number): Finding {
  const problem = `kube-apiserver gets --cloud-provider/--cloud-config from ${plural(sources, 'place')}, and kube-apiserver 1.33 exits with "unknown flag: --cloud-provider" (kubernetes/kubernetes#130162)`;
  if (ctx.profile.distro === 'rke2') {
    return {
      problem,
      handledByPlan: 'its upgrade-kubernetes-1.33 step removes them from kube-apiserver-arg in the same edit',
      fix: {
        type: 'config',
        description:
          'remove cloud-provider and cloud-config from every kube-apiserver-arg (machineGlobalConfig and each machineSelectorConfig entry) in the same edit that sets spec.kubernetesVersion to 1.33; Rancher\u2019s docs still recommend the flag (rancher/rancher-docs#2281), which holds only up to 1.32',
        target: 'the Rancher provisioning Cluster (spec.rkeConfig)',
        snippet: 'kube-apiserver-arg: []   # no cloud-provider=…, no cloud-config=…\n',
        commands: ['kubectl edit clusters.provisioning.cattle.io -n fleet-default <cluster>'],
      },
    };
  }
  return {
    problem,
    handledByPlan: 'the person\u2019s part of its upgrade-kubernetes-1.33 step removes them',
    fix: {
      type: 'manual',
      description:
        'remove --cloud-provider and --cloud-config from kube-apiserver in the same edit that moves it to 1.33',
      steps: [
        'on each control-plane node, delete both flags from /etc/kubernetes/manifests/kube-apiserver.yaml as you set its image to 1.33',
        'kubectl -n kube-system edit configmap kubeadm-config: remove cloud-provider and cloud-config from apiServer.extraArgs (kubeadm upgrade writes them back otherwise)',
      ],
    },
  };
}

/** Why the servers would run RKE2's own cloud controller on 1.36, or undefined when they would not. */
function cloudControllerNotDisabled(ctx: CheckContext): string | undefined {
  const definition = ctx.profile.definition;
  if (definition?.distro === 'rke2') {
    return definition.roles['control-plane'].disableCloudController === true
      ? undefined
      : `${definition.source}: disable-cloud-controller is not set for the control-plane machines`;
  }
  const without = ctx.profile.controlPlane.filter((n) => {
    const values = nodeArgValues(n.annotations['rke2.io/node-args'], 'disable-cloud-controller');
    const bare = (n.annotations['rke2.io/node-args'] ?? '').includes('"--disable-cloud-controller"');
    return !(bare || values.some((v) => v === 'true'));
  });
  return without.length > 0
    ? `disable-cloud-controller is not in rke2.io/node-args of ${without.map((n) => n.name).join(', ')}`
    : undefined;
}

function cloudControllerFinding(): Finding {
  return {
    problem:
      'RKE2 from v1.36.0+rke2r1 runs its own cloud controller unless disable-cloud-controller is set (cloud-provider-name no longer turns it off, rancher/rke2#10351), and it would race the aws-cloud-controller-manager to initialise nodes',
    handledByPlan: 'its switch-to-external step sets disable-cloud-controller: true for the control plane',
    fix: {
      type: 'config',
      description:
        'set disable-cloud-controller: true for the control-plane machines before the upgrade to 1.36 (RKE2\u2019s docs recommend it with any provider CCM, rancher/rke2-docs#616; it changes nothing on earlier releases)',
      target: 'the Rancher provisioning Cluster (spec.rkeConfig.machineSelectorConfig)',
      snippet: [
        'machineSelectorConfig:',
        '  - config:',
        '      disable-cloud-controller: true',
        '    machineLabelSelector:',
        '      matchExpressions:',
        '        - key: rke.cattle.io/control-plane-role',
        '          operator: In',
        "          values: ['true']",
        '',
      ].join('\n'),
      commands: ['kubectl edit clusters.provisioning.cattle.io -n fleet-default <cluster>'],
    },
  };
}
