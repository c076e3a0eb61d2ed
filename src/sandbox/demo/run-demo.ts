/**
 * `uproot demo`: start a twin, then run preflight, migrate and verify against it exactly as a user would
 * against a real cluster (over HTTPS and the AWS SDK, with the real toolkit functions), write the report,
 * and stop the twin. The exit code is verify's.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { startDemoClock } from './demo-clock.js';
import { join } from 'node:path';
import { RealClock, VirtualClock, type Clock } from '../../clock/index.js';
import type { ExitCode } from '../../errors/index.js';
import { analyzeLedger } from '../../core/ownership/index.js';
import type { PreflightReport } from '../../core/checks/index.js';
import { JournalMirror } from '../../adapters/files/journal-mirror.js';
import type { RunHost } from '../../toolkit/session/run-settings.js';
import type { EngineEvent } from '../../engine/events.js';
import type { InstanceReader } from '../../toolkit/verify.js';
import { preflight } from '../../toolkit/preflight.js';
import { migrate, type MigrateOptions, type MigrateResult } from '../../toolkit/migrate.js';
import { verify, type VerifyReport } from '../../toolkit/verify.js';
import { buildReportModel, renderReportHtml, renderReportMarkdown } from '../../report/index.js';
import { awsEnvironment } from '../aws/index.js';
import { loadScenario } from '../scenarios/index.js';
import { startTwin, type LedgerReport, type Twin } from '../twin/index.js';
import { actAsPerson } from './twin-person.js';
import { twinTarget } from './twin-target.js';
import type { MigrationPlan, StepId } from '../../core/plan/plan-types.js';

export interface DemoOptions {
  readonly scenario: string;
  /** Simulated seconds per real second. */
  readonly timeScale: number;
  /** Where the twin and the report go. */
  readonly dir: string;
  readonly nodes?: number;
}

export interface DemoDeps {
  /** EC2 reads for verify, with the twin's AWS environment (default: the AWS SDK, as verify reads EC2). */
  readonly instances?: (env: Readonly<Record<string, string | undefined>>) => InstanceReader;
  readonly onProgress?: (line: string) => void;
  readonly onEvent?: (event: EngineEvent) => void;
  /** Default: real time scaled by `timeScale`. */
  readonly clock?: Clock;
  /**
   * Run in virtual time: simulated time advances only while no tracked request is in flight, so the figures
   * (gaps in particular) do not depend on how busy the machine is.
   */
  readonly virtualTime?: boolean;
}

export interface DemoResult {
  readonly exitCode: ExitCode;
  readonly scenario: string;
  readonly preflight: PreflightReport;
  readonly migration: MigrateResult;
  readonly verify: VerifyReport;
  /** Ground truth from the twin's ownership ledger over the migration. */
  readonly ledger: LedgerReport;
  readonly report: { readonly html: string; readonly markdown: string } | undefined;
  readonly wallSeconds: number;
  readonly simulatedSeconds: number;
}

export async function runDemo(options: DemoOptions, host: RunHost, deps: DemoDeps): Promise<DemoResult> {
  const { scenario } = loadScenario(options.scenario, { cwd: host.cwd });
  const progress = deps.onProgress ?? (() => undefined);
  const demoClock = startDemoClock({
    virtualTime: deps.virtualTime ?? false,
    timeScale: options.timeScale,
    ...(deps.clock ? { clock: deps.clock } : {}),
  });
  const { clock } = demoClock;
  const wallStart = Date.now();
  const simStart = clock.now();
  mkdirSync(options.dir, { recursive: true, mode: 0o700 });

  progress(
    `starting the ${scenario.name} twin (${scenario.nodes.controlPlane} control-plane, ${scenario.nodes.etcd > 0 ? `${scenario.nodes.etcd} etcd, ` : ''}${scenario.nodes.workers} workers, Kubernetes ${scenario.kubernetesVersion}, ${clockDescription(clock, options.timeScale)})`,
  );
  const twin: Twin = await startTwin({
    scenario,
    clock,
    dir: options.dir,
    ...(options.nodes ? { nodes: options.nodes } : {}),
  });
  try {
    const env = { ...host.env, ...awsEnvironment(twin.aws), AWS_EC2_METADATA_DISABLED: 'true' };
    const runHost: RunHost = { ...host, env, interactive: false };
    const { target, execution, runner } = twinTarget(twin, clock);
    progress(
      `kubeconfig ${twin.files.kubeconfig} (contexts ${twin.contexts.downstream}${twin.contexts.rancher ? `, ${twin.contexts.rancher}` : ''})`,
    );

    progress('preflight: auditing the cluster and the AWS account');
    const pre = await preflight({ ...target, env, cwd: host.cwd, clock });
    const counts = countStatuses(pre.report);
    progress(`preflight: ${counts}`);
    for (const c of pre.report.checks.filter((check) => check.status === 'fail'))
      progress(`preflight: ✗ ${c.title}: ${c.message}`);

    progress('migrate: executing the plan behind its gates');
    const stateDir = join(options.dir, '.uproot');
    // The plan as built (the journal's copy drops the artifacts the person's steps use).
    let built: MigrationPlan | undefined;
    const runMigrate = (extra: Partial<MigrateOptions>): Promise<MigrateResult> =>
      migrate(
        {
          ...target,
          yes: true,
          stateDir,
          ...execution,
          ...extra,
        },
        runHost,
        {
          clock,
          runner,
          onPlan: (plan, context) => {
            if (!context.resumed) built = plan;
          },
          ...(deps.onEvent ? { onEvent: deps.onEvent } : {}),
        },
      );
    let migration = await runMigrate({});
    // Steps a person does (RKE without helm-controller: helm installs of the CCM chart): do them, resume.
    const done: StepId[] = [];
    for (;;) {
      const waiting = migration.outcome.type === 'ran' ? migration.outcome.result : undefined;
      if (waiting?.type !== 'waiting-for-person' || done.includes(waiting.step)) break;
      const did = actAsPerson(twin, built ?? waiting.journal.plan, waiting.instructions);
      if (!did) break;
      progress(`migrate: ${waiting.step} needs a person; the demo does it: ${did}`);
      done.push(waiting.step);
      migration = await runMigrate({ resume: true, manualDone: done });
    }
    progress(
      migration.outcome.type === 'preflight-failed'
        ? 'migrate: refused by preflight, nothing was changed (this scenario shows that defect; its fix is above)'
        : `migrate: ${migration.outcome.type === 'ran' ? migration.outcome.result.type : migration.outcome.type}`,
    );

    progress('verify: proving the end state');
    // Without a journal (preflight refused), verify is told the distribution rather than guessing it.
    const verified = await verify(
      { ...target, distro: scenario.distribution === 'none' ? 'kubeadm' : scenario.distribution },
      runHost,
      { clock, ...(deps.instances ? { instances: deps.instances(env) } : {}) },
    );

    const end = clock.now();
    const ledger = twin.ledgerReport();
    const journal = new JournalMirror(stateDir, scenario.clusterName).read();
    let report: DemoResult['report'];
    if (journal) {
      const from = Date.parse(journal.createdAt);
      const ownership = analyzeLedger(twin.ledger.entries, {
        window: { from, to: Math.max(from + 1, end) },
        controllers: ['route', 'service', 'cloud-node-lifecycle'],
      });
      const model = buildReportModel(journal, { ownership, now: end });
      report = { html: join(options.dir, 'report.html'), markdown: join(options.dir, 'report.md') };
      writeFileSync(report.html, renderReportHtml(model));
      writeFileSync(report.markdown, renderReportMarkdown(model));
    }
    return {
      exitCode: verified.exitCode,
      scenario: scenario.name,
      preflight: pre.report,
      migration,
      verify: verified.report,
      ledger,
      report,
      wallSeconds: Math.round((Date.now() - wallStart) / 100) / 10,
      simulatedSeconds: Math.round((end - simStart) / 100) / 10,
    };
  } finally {
    progress('stopping the twin');
    await twin.close();
    await demoClock.stop();
  }
}

function countStatuses(report: PreflightReport): string {
  const counts = new Map<string, number>();
  for (const c of report.checks) counts.set(c.status, (counts.get(c.status) ?? 0) + 1);
  return ['pass', 'warn', 'fail', 'skip'].map((s) => `${counts.get(s) ?? 0} ${s}`).join(', ');
}

/** How the demo's time runs, for its first line: virtual time, or real time sped up. */
export function clockDescription(clock: Clock, timeScale: number): string {
  if (clock instanceof VirtualClock) return 'virtual time';
  return clock instanceof RealClock ? `time x${timeScale}` : 'an injected clock';
}
