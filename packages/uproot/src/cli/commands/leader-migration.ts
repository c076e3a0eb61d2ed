import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import type { CommandRegistrar } from '../program.js';
import { outputOption, parseOutputFormat, renderDocument } from '../output.js';
import { ExitCode, InputError } from '../../errors/index.js';
import { parseKubernetesVersion } from '../../core/model/kubernetes-version.js';
import {
  checkLeaderMigrationConfiguration,
  leaderMigrationToYaml,
  logicalControllerOf,
  renderLeaderMigrationConfiguration,
  MIGRATION_PHASES,
  type ConfigIssue,
  type LeaderMigrationReport,
  type ManagerComponent,
  type MigrationPhase,
} from '../../core/leader-migration/index.js';

const COMPONENTS = ['kube-controller-manager', 'cloud-controller-manager'] as const;

export const registerLeaderMigrationCommands: CommandRegistrar = (program, ctx) => {
  const lm: Command = program
    .command('leader-migration')
    .description('Validate and render LeaderMigrationConfiguration files (controllermanager.config.k8s.io)');

  lm.command('validate')
    .description('Check a LeaderMigrationConfiguration as the controller managers would, plus uproot lint')
    .argument('<file>', 'YAML or JSON file')
    .addOption(
      new Option('--component <name>', 'show how this manager resolves each controller').choices(COMPONENTS),
    )
    .option(
      '--kubernetes-version <v>',
      'the managers\u2019 Kubernetes version (strict decoding from 1.32)',
      '1.32',
    )
    .option(
      '--kcm-cloud-provider <name>',
      'kube-controller-manager --cloud-provider, to lint the flag combination',
    )
    .addOption(outputOption())
    .action(
      ctx.run(
        async (
          file: string,
          opts: {
            component?: ManagerComponent;
            kubernetesVersion: string;
            kcmCloudProvider?: string;
            output: string;
          },
        ) => {
          const format = parseOutputFormat(opts.output);
          const version = parseKubernetesVersion(opts.kubernetesVersion, '--kubernetes-version');
          const path = resolve(ctx.io.cwd, file);
          const text = readInput(path, file);
          const report = checkLeaderMigrationConfiguration(text, {
            file,
            kubernetesVersion: version,
            components: opts.component ? [opts.component] : undefined,
            kcmFlags: opts.kcmCloudProvider
              ? { cloudProvider: opts.kcmCloudProvider, enableLeaderMigration: true }
              : undefined,
          });
          ctx.io.stdout(format !== 'text' ? renderDocument(report, format) : renderReport(report));
          return report.valid ? ExitCode.ok : ExitCode.failed;
        },
      ),
    );

  lm.command('render')
    .description('Render the initial (KCM), target (CCM) or wildcard configuration of the Kubernetes task')
    .addOption(
      new Option('--phase <phase>', 'which configuration').choices(MIGRATION_PHASES).makeOptionMandatory(),
    )
    .option('--with-nodeipam', 'also migrate the Node IPAM controller', false)
    .option('--kubernetes-version <v>', 'version of the managers (N)', '1.26')
    .option('--ccm-version <v>', 'version of the CCM when it differs (N+1); names of both eras are listed')
    .addOption(
      new Option('--api-version <v>', 'file apiVersion').choices(['v1', 'v1beta1', 'v1alpha1']).default('v1'),
    )
    .action(
      ctx.run(
        async (opts: {
          phase: MigrationPhase;
          withNodeipam: boolean;
          kubernetesVersion: string;
          ccmVersion?: string;
          apiVersion: 'v1' | 'v1beta1' | 'v1alpha1';
        }) => {
          const versions = [parseKubernetesVersion(opts.kubernetesVersion, '--kubernetes-version')];
          if (opts.ccmVersion) versions.push(parseKubernetesVersion(opts.ccmVersion, '--ccm-version'));
          const config = renderLeaderMigrationConfiguration({
            phase: opts.phase,
            versions,
            withNodeIpam: opts.withNodeipam,
          });
          ctx.io.stdout(
            leaderMigrationToYaml(
              config,
              opts.apiVersion,
              `uproot: ${opts.phase} leader-migration configuration; save as /etc/leadermigration.conf`,
            ),
          );
          return ExitCode.ok;
        },
      ),
    );
};

function readInput(path: string, shown: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new InputError(
      'UP-FILE-READ',
      `unable to read leader migration configuration from "${shown}": ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      {
        location: { file: shown },
        hint: 'check the path',
      },
    );
  }
}

function renderReport(r: LeaderMigrationReport): string {
  const out: string[] = [];
  out.push(
    `${r.file}: ${r.valid ? 'valid' : 'INVALID'} ${r.apiVersion} LeaderMigrationConfiguration for Kubernetes ${r.kubernetesVersion}`,
  );
  out.push(
    `  leaderName: ${r.config.leaderName || '(empty)'}   resourceLock: ${r.config.resourceLock || '(empty)'}`,
  );
  const issue = (i: ConfigIssue): string =>
    `  ${i.severity === 'error' ? 'error  ' : 'warning'} ${i.line ? `${r.file}:${i.line}${i.column ? `:${i.column}` : ''} ` : ''}${i.message}${i.hint ? `\n          fix: ${i.hint}` : ''}`;
  for (const e of r.errors) out.push(issue(e));
  for (const w of r.warnings) out.push(issue(w));
  for (const [component, rows] of Object.entries(r.resolution)) {
    const cloud = rows.filter(
      (row) => row.ownership !== 'non-migrated' || logicalControllerOf(row.controller) !== undefined,
    );
    out.push(`  ${component}:`);
    for (const row of cloud) out.push(`    ${row.controller.padEnd(34)} ${row.ownership}`);
  }
  return `${out.join('\n')}\n`;
}
