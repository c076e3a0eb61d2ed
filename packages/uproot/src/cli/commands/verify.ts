/** `uproot verify`: prove the end state of the migration; exit 1 when any check fails. */
import { Option } from 'commander';
import type { CommandContext, CommandRegistrar } from '../program.js';
import { outputOption, parseOutputFormat, renderDocument } from '../output.js';
import { DISTROS, type Distro } from '../../core/model/plan-types.js';
import { verify, type VerifyReport } from '../../toolkit/verify.js';
import { addTargetOptions, hostOf, targetFlags, type TargetCliFlags } from '../command-kit.js';

interface VerifyCliFlags extends TargetCliFlags {
  region?: string;
  distro?: Distro;
  ccmDaemonset?: string;
  output: string;
}

const MARK = { pass: '✓', fail: '✗', skip: '-' } as const;

export function verifyText(report: VerifyReport): string {
  const lines = report.checks.map(
    (c) => `${MARK[c.status]} ${c.title}\n    ${c.detail}${c.fix ? `\n    fix: ${c.fix}` : ''}`,
  );
  return `${lines.join('\n')}\n${verdictLine(report)}\n`;
}

function verdictLine(report: VerifyReport): string {
  switch (report.outcome) {
    case 'pass':
      return 'Verified: the cluster runs on the aws-cloud-controller-manager.';
    case 'fail':
      return 'Not verified: see the failed checks above.';
    case 'incomplete': {
      const skipped = report.checks.filter((c) => c.status === 'skip');
      return `Not verified: ${skipped.length} check(s) the migration needs could not run: ${skipped.map((c) => `${c.id} (${c.detail})`).join('; ')}`;
    }
  }
}

async function runVerify(opts: VerifyCliFlags, ctx: CommandContext): Promise<number> {
  const format = parseOutputFormat(opts.output);
  const { report, exitCode } = await verify(
    {
      ...targetFlags(opts),
      ...(opts.region ? { region: opts.region } : {}),
      ...(opts.distro ? { distro: opts.distro } : {}),
      ...(opts.ccmDaemonset ? { ccmDaemonSet: opts.ccmDaemonset } : {}),
    },
    hostOf(ctx.io),
    ctx.io.clock ? { clock: ctx.io.clock } : {},
  );
  ctx.io.stdout(
    format !== 'text' ? renderDocument(report, format) : ctx.hints().runnable(verifyText(report)),
  );
  return exitCode;
}

export const registerVerifyCommand: CommandRegistrar = (program, ctx) => {
  const cmd = program
    .command('verify')
    .description(
      'Prove the migration\u2019s end state (providerIDs, taints, CCM, KCM flags, load balancers, leases)',
    );
  addTargetOptions(cmd, false);
  cmd
    .option('--region <region>', 'AWS region of the instances (default AWS_REGION, then the nodes)')
    .addOption(new Option('--distro <distro>', 'the distribution, when there is no journal').choices(DISTROS))
    .option(
      '--ccm-daemonset <ns/name>',
      'the CCM DaemonSet (default from the plan, else kube-system/aws-cloud-controller-manager)',
    )
    .addOption(outputOption())
    .action(ctx.run((opts: VerifyCliFlags) => runVerify(opts, ctx)));
};
