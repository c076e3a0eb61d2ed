/**
 * `uproot preflight`: audits a live cluster and its AWS account, read-only, and says what to fix before
 * migrating. Exit 0 when nothing fails, 1 when a check fails (or warns, with --fail-on warn), 2 when it
 * cannot run (bad flags, no access to the cluster).
 */
import { Option } from 'commander';
import type { CommandRegistrar } from '../program.js';
import { outputOption, parseOutputFormat, renderDocument } from '../output.js';
import { ExitCode } from '../../errors/index.js';
import { preflightReportSchema, renderPreflightText, type PreflightReport } from '../../toolkit/documents.js';
import { preflight } from '../../toolkit/preflight.js';

interface PreflightFlags {
  kubeconfig?: string;
  context?: string;
  rancherContext?: string;
  cluster?: string;
  clusterFile?: string;
  region?: string;
  targetVersion?: string;
  allowUnknownRelease?: boolean;
  output: string;
  failOn: 'fail' | 'warn';
}

export const registerPreflightCommand: CommandRegistrar = (program, ctx) => {
  program
    .command('preflight')
    .description(
      'Audit the cluster and its AWS account (read-only) for everything the migration needs, and how to fix it',
    )
    .option('--kubeconfig <file>', 'kubeconfig (default $KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', 'context of the cluster to migrate (default: current context)')
    .option(
      '--rancher-context <name>',
      "context of Rancher's management cluster, to read the provisioning Cluster",
    )
    .option(
      '--cluster <name>',
      'the provisioning.cattle.io Cluster: NAME or NAMESPACE/NAME (namespace fleet-default)',
    )
    .option(
      '--cluster-file <file>',
      'an RKE2 Cluster YAML, RKE cluster.yml or kubeadm kube-controller-manager manifest',
    )
    .option('--region <region>', 'AWS region (default AWS_REGION, then the nodes\u2019 region label)')
    .option('--target-version <version>', 'the Kubernetes version the migration upgrades to, e.g. 1.27')
    .option(
      '--allow-unknown-release',
      "accept a --target-version release newer than uproot's release table (a brand-new release)",
    )
    .addOption(outputOption())
    .addOption(
      new Option('--fail-on <level>', 'exit 1 on failed checks, or on warnings too')
        .choices(['fail', 'warn'])
        .default('fail'),
    )
    .action(
      ctx.run(async (opts: PreflightFlags) => {
        const format = parseOutputFormat(opts.output);
        const showProgress = ctx.io.interactive && format === 'text';
        const progress = (step: string) => ctx.io.stderr(`\r\x1b[2Kpreflight: ${step}…`);
        let report: PreflightReport;
        try {
          ({ report } = await preflight({
            ...(opts.kubeconfig ? { kubeconfig: opts.kubeconfig } : {}),
            ...(opts.context ? { context: opts.context } : {}),
            ...(opts.rancherContext ? { rancherContext: opts.rancherContext } : {}),
            ...(opts.cluster ? { cluster: opts.cluster } : {}),
            ...(opts.clusterFile ? { clusterFile: opts.clusterFile } : {}),
            ...(opts.region ? { region: opts.region } : {}),
            ...(opts.targetVersion ? { targetVersion: opts.targetVersion } : {}),
            ...(opts.allowUnknownRelease ? { allowUnknownRelease: true } : {}),
            env: ctx.io.env,
            cwd: ctx.io.cwd,
            ...(showProgress ? { onProgress: progress } : {}),
          }));
        } finally {
          if (showProgress) ctx.io.stderr('\r\x1b[2K');
        }
        ctx.io.stdout(
          format !== 'text'
            ? renderDocument(preflightReportSchema.parse(report), format)
            : renderPreflightText(report),
        );
        return exitCodeFor(report, opts.failOn);
      }),
    );
};

export function exitCodeFor(report: PreflightReport, failOn: 'fail' | 'warn'): number {
  if (report.outcome === 'fail') return ExitCode.failed;
  if (report.outcome === 'warn' && failOn === 'warn') return ExitCode.failed;
  return ExitCode.ok;
}
