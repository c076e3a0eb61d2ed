/**
 * `uproot plan`: parse flags, call the plan toolkit (src/toolkit/plan.ts: read the cluster definition, plan,
 * write --out), print the ordered migration. Works offline; with migrate's connection flags (--context,
 * --rancher-context, --cluster) it plans from the live cluster as `migrate --dry-run` does (toolkit/live-plan.ts).
 */
import type { CommandRegistrar } from '../program.js';
import { outputOption, parseOutputFormat, renderDocument } from '../output.js';
import { EXAMPLES } from '../../adapters/cluster-source/index.js';
import { renderPlanText } from '../../core/plan/render-text.js';
import { plan } from '../../toolkit/plan.js';
import { livePlan, plansLive, type LivePlanOptions } from '../../toolkit/live-plan.js';
import { ExitCode, InputError } from '../../errors/index.js';

interface PlanCliOptions {
  kubeconfig?: string;
  context?: string;
  rancherContext?: string;
  cluster?: string;
  clusterFile?: string[];
  example?: string;
  distro?: string;
  targetVersion?: string;
  allowUnknownRelease?: boolean;
  ccmImageTag?: string;
  keepAwsNodeNaming?: boolean;
  useInstanceMetadataHostname?: boolean;
  withNodeipam?: boolean;
  out?: string;
  output: string;
}

export const registerPlanCommand: CommandRegistrar = (program, ctx) => {
  program
    .command('plan')
    .description(
      'Plan the migration of a cluster definition (RKE2, RKE, kubeadm) to the aws-cloud-controller-manager, offline',
    )
    .option(
      '--kubeconfig <file>',
      'plan from a live cluster: kubeconfig (default $KUBECONFIG, then ~/.kube/config)',
    )
    .option('--context <name>', 'plan from a live cluster: its context (the same flags as migrate)')
    .option(
      '--rancher-context <name>',
      "plan from a live cluster: context of Rancher's management cluster, to read the provisioning Cluster",
    )
    .option(
      '--cluster <name>',
      'with --rancher-context: the provisioning.cattle.io Cluster, NAME or NAMESPACE/NAME (namespace fleet-default)',
    )
    .option(
      '--cluster-file <file...>',
      'the cluster definition: a Rancher Cluster YAML, cluster.yml, or kubeadm manifests (files or a directory)',
    )
    .option('--example <name>', `plan a built-in example: ${Object.keys(EXAMPLES).join(', ')}`)
    .option('--distro <distro>', 'rke2, rke or kubeadm (detected when left out)')
    .option(
      '--target-version <version>',
      'Kubernetes release to end on (default: the current one); past the next minor, the plan upgrades one minor at a time',
    )
    .option(
      '--allow-unknown-release',
      "accept a --target-version release newer than uproot's release table (a brand-new release)",
    )
    .option(
      '--ccm-image-tag <tag>',
      'cloud-controller-manager image tag instead of the pinned release for the cluster\u2019s minor',
    )
    .option(
      '--keep-aws-node-naming',
      'RKE2: keep cloud-provider-name aws (node names from instance metadata) and switch with per-role overrides',
    )
    .option('--no-keep-aws-node-naming', 'RKE2: set cloud-provider-name external')
    .option('--use-instance-metadata-hostname', 'RKE: set useInstanceMetadataHostname true')
    .option('--no-use-instance-metadata-hostname', 'RKE: set useInstanceMetadataHostname false')
    .option(
      '--with-nodeipam',
      'move the Node IPAM controller to the CCM too (refused: no aws-cloud-controller-manager release implements it)',
    )
    .option(
      '--out <dir>',
      'write every artifact (edited files per step, values, configs, RUNBOOK.md) to this directory',
    )
    .addOption(outputOption())
    .action(
      ctx.run(async (opts: PlanCliOptions) => {
        const format = parseOutputFormat(opts.output);
        const { output: _output, withNodeipam, ...flags } = opts;
        const result = plansLive(flags)
          ? await livePlan(liveOptions(flags, withNodeipam, ctx.io))
          : await plan({ ...flags, withNodeIpam: withNodeipam, cwd: ctx.io.cwd });
        if (result.written !== undefined) ctx.io.stderr(`wrote ${result.written} file(s) to ${opts.out}\n`);
        ctx.io.stdout(format === 'text' ? renderPlanText(result.plan) : renderDocument(result.plan, format));
        return ExitCode.ok;
      }),
    );
};

/** migrate's flags for a live plan: one cluster file at most (migrate takes one). */
function liveOptions(
  flags: Omit<PlanCliOptions, 'output' | 'withNodeipam'>,
  withNodeIpam: boolean | undefined,
  io: { readonly cwd: string; readonly env: Readonly<Record<string, string | undefined>> },
): LivePlanOptions {
  const {
    clusterFile,
    example,
    distro: _distro,
    keepAwsNodeNaming: _k,
    useInstanceMetadataHostname: _u,
    ...rest
  } = flags;
  if (example !== undefined || (clusterFile && clusterFile.length > 1)) {
    throw new InputError('UP-PLAN-ARGS', 'a live plan reads one cluster, like migrate', {
      location: {
        field: example !== undefined ? '--example' : '--cluster-file',
        value: example ?? clusterFile!.join(' '),
      },
      hint: 'drop --example, and give at most one --cluster-file (RKE cluster.yml or kubeadm manifests) with --context',
    });
  }
  return {
    ...rest,
    ...(clusterFile?.[0] ? { clusterFile: clusterFile[0] } : {}),
    ...(withNodeIpam ? { withNodeIpam: true } : {}),
    cwd: io.cwd,
    env: io.env,
  };
}
