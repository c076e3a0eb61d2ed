/**
 * `uproot demo`: start a twin, then run preflight, migrate and verify against it exactly as a user would
 * against a real cluster (over HTTPS and the AWS SDK, with the real toolkit functions), write the report,
 * and stop the twin. The exit code is verify's.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { startDemoClock } from './demo-clock.js';
import { join } from 'node:path';
import {
  RealClock,
  VirtualClock,
  type Clock,
  ExitCode,
  type PreflightReport,
  JournalMirror,
  type RunHost,
  type EngineEvent,
  type InstanceReader,
  preflight,
  migrate,
  type MigrateOptions,
  type MigrateResult,
  verify,
  type VerifyReport,
  buildReportModel,
  renderReportHtml,
  renderReportMarkdown,
  type MigrationPlan,
  type StepId,
  type Journal,
  type StepState,
} from 'uproot';
import { awsEnvironment } from '../aws/index.js';
import { loadScenario, type Scenario } from '../scenarios/index.js';
import { ledgerReport, startTwin, type LedgerReport, type Twin } from '../twin/index.js';
import { actAsPerson } from './twin-person.js';
import { twinTarget, type TwinTarget } from './twin-target.js';

export interface DemoOptions {
  readonly scenario: string;
  /** Simulated seconds per real second. */
  readonly timeScale: number;
  /** Where the twin and the report go. */
  readonly dir: string;
  readonly nodes?: number;
  /** Where the journey ends (`--target-version`): the migration, then one hop per minor. */
  readonly targetVersion?: string;
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
  /** The twin's own log (its components, Rancher's planner, rke up, the kubelets). */
  readonly twinLog?: (line: string) => void;
  /** Looks at the twin after verify, before it stops (tests read its API objects and ledger). */
  readonly inspect?: (twin: Twin) => Promise<void> | void;
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
  /** What the demo's person did for the steps uproot left to one, in order. */
  readonly person: readonly { readonly step: StepId; readonly did: string }[];
  /** The Kubernetes versions the plan went through (absent when it kept the version or nothing ran). */
  readonly journey: DemoJourney | undefined;
  /** Ground truth from the twin at the end: what `/version` says, each kubelet, each control-plane pod. */
  readonly running: {
    readonly apiServerVersion: string;
    readonly kubelets: Readonly<Record<string, string>>;
    readonly controlPlanePods: Readonly<Record<string, string>>;
  };
  readonly wallSeconds: number;
  readonly simulatedSeconds: number;
}

export interface DemoJourney {
  readonly from: string;
  readonly to: string;
  /** Every step that changed the version, in order, with where it stands in the journal. */
  readonly hops: readonly { readonly step: StepId; readonly version: string; readonly state: StepState }[];
}

/** The version steps of the journaled plan and how far each got. */
export function demoJourney(journal: Journal | undefined): DemoJourney | undefined {
  const upgrades = journal?.plan.kubernetes.upgrades;
  if (!journal || !upgrades?.length) return undefined;
  const states = new Map(journal.steps.map((s) => [s.id, s.state]));
  return {
    from: journal.plan.kubernetes.current,
    to: journal.plan.kubernetes.target,
    hops: upgrades.map((u) => ({ step: u.step, version: u.version, state: states.get(u.step) ?? 'pending' })),
  };
}

/**
 * The demo's verdict: verify's, and a migration that did not get to its end (a gate failed, nobody could do a
 * person's step) fails the demo even where verify passes, e.g. stopped between two hops of a journey.
 */
export function demoExitCode(
  migration: MigrateResult,
  verified: ExitCode,
  verifyOutcome?: 'pass' | 'fail' | 'incomplete',
): ExitCode {
  const o = migration.outcome;
  // A cluster already on the external provider has no migration to prove: verify's journal checks (load
  // balancers kept, no overlap) are skipped, not failed, and nothing else is wrong.
  const nothingToProve = o.type === 'nothing-to-do' && verifyOutcome === 'incomplete';
  if (verified !== ExitCode.ok && !nothingToProve) return verified;
  const finished =
    o.type === 'nothing-to-do' ||
    o.type === 'already-completed' ||
    (o.type === 'ran' && o.result.type === 'completed');
  return finished ? ExitCode.ok : ExitCode.failed;
}

/** What the demo's phases share once the twin runs: the twin, the clock, how uproot reaches it. */
interface DemoSession {
  readonly scenario: Scenario;
  readonly twin: Twin;
  readonly clock: Clock;
  readonly options: DemoOptions;
  readonly deps: DemoDeps;
  readonly progress: (line: string) => void;
  readonly env: Record<string, string | undefined>;
  readonly runHost: RunHost;
  readonly cwd: string;
  readonly twinTarget: TwinTarget;
  /** `--target-version` or the scenario's, as the toolkit's flag (empty when the version stays). */
  readonly targetVersion: string | undefined;
  readonly versionFlag: { readonly targetVersion?: string };
  readonly stateDir: string;
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
    ...(deps.twinLog ? { log: deps.twinLog } : {}),
  });
  try {
    const env = { ...host.env, ...awsEnvironment(twin.aws), AWS_EC2_METADATA_DISABLED: 'true' };
    const targetVersion = options.targetVersion ?? scenario.migration.targetVersion;
    const session: DemoSession = {
      scenario,
      twin,
      clock,
      options,
      deps,
      progress,
      env,
      runHost: { ...host, env, interactive: false },
      cwd: host.cwd,
      twinTarget: twinTarget(twin, clock),
      targetVersion,
      versionFlag: targetVersion ? { targetVersion } : {},
      stateDir: join(options.dir, '.uproot'),
    };
    progress(
      `kubeconfig ${twin.files.kubeconfig} (contexts ${twin.contexts.downstream}${twin.contexts.rancher ? `, ${twin.contexts.rancher}` : ''})`,
    );
    const pre = await demoPreflight(session);
    const { migration, person } = await demoMigrate(session);
    const verified = await demoVerify(session);
    await deps.inspect?.(twin);
    const end = clock.now();
    const { ledger, running, journal, report } = demoEndState(session, migration, end);
    return {
      exitCode: demoExitCode(migration, verified.exitCode, verified.report.outcome),
      scenario: scenario.name,
      preflight: pre.report,
      migration,
      verify: verified.report,
      ledger,
      report,
      person,
      journey: demoJourney(journal),
      running,
      wallSeconds: Math.round((Date.now() - wallStart) / 100) / 10,
      simulatedSeconds: Math.round((end - simStart) / 100) / 10,
    };
  } finally {
    progress('stopping the twin');
    await twin.close();
    await demoClock.stop();
  }
}

/** Preflight against the twin, its counts and failed checks printed. */
async function demoPreflight(session: DemoSession): Promise<Awaited<ReturnType<typeof preflight>>> {
  const { progress } = session;
  progress('preflight: auditing the cluster and the AWS account');
  const pre = await preflight({
    ...session.twinTarget.target,
    ...session.versionFlag,
    env: session.env,
    cwd: session.cwd,
    clock: session.clock,
  });
  progress(`preflight: ${countStatuses(pre.report)}`);
  for (const c of pre.report.checks.filter((check) => check.status === 'fail'))
    progress(`preflight: ✗ ${c.title}: ${c.message}`);
  return pre;
}

/** Migrate behind its gates; the steps a person does, the demo does and resumes after. */
async function demoMigrate(session: DemoSession): Promise<{
  migration: MigrateResult;
  person: { step: StepId; did: string }[];
}> {
  const { progress, twin, clock, targetVersion, deps } = session;
  const { target, execution, runner } = session.twinTarget;
  progress(
    `migrate: executing the plan behind its gates${targetVersion ? ` (to Kubernetes ${targetVersion}, one minor at a time)` : ''}`,
  );
  // The plan as built (the journal's copy drops the artifacts the person's steps use).
  let built: MigrationPlan | undefined;
  const runMigrate = (extra: Partial<MigrateOptions>): Promise<MigrateResult> =>
    migrate(
      {
        ...target,
        yes: true,
        stateDir: session.stateDir,
        ...session.versionFlag,
        ...execution,
        ...extra,
      },
      session.runHost,
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
  const person: { step: StepId; did: string }[] = [];
  for (;;) {
    const waiting = migration.outcome.type === 'ran' ? migration.outcome.result : undefined;
    if (waiting?.type !== 'waiting-for-person' || done.includes(waiting.step)) break;
    const did = await actAsPerson(twin, clock, built ?? waiting.journal.plan, waiting);
    if (!did) break;
    progress(`migrate: ${waiting.step} needs a person; the demo does it: ${did}`);
    done.push(waiting.step);
    person.push({ step: waiting.step, did });
    migration = await runMigrate({ resume: true, manualDone: done });
  }
  progress(
    migration.outcome.type === 'preflight-failed'
      ? `migrate: refused by preflight, nothing was changed (${targetVersion ? 'the failed check and its fix are above' : 'this scenario shows that defect; its fix is above'})`
      : `migrate: ${migration.outcome.type === 'ran' ? migration.outcome.result.type : migration.outcome.type}`,
  );
  return { migration, person };
}

/** Verify proves the end state. */
async function demoVerify(session: DemoSession): Promise<Awaited<ReturnType<typeof verify>>> {
  const { scenario, deps } = session;
  session.progress('verify: proving the end state');
  // Without a journal (preflight refused), verify is told the distribution rather than guessing it.
  return verify(
    {
      ...session.twinTarget.target,
      distro: scenario.distribution === 'none' ? 'kubeadm' : scenario.distribution,
    },
    session.runHost,
    { clock: session.clock, ...(deps.instances ? { instances: deps.instances(session.env) } : {}) },
  );
}

/** What the twin and the journal say at the end: the ownership ledger, the running versions, the report. */
function demoEndState(
  session: DemoSession,
  migration: MigrateResult,
  end: number,
): {
  ledger: LedgerReport;
  running: DemoResult['running'];
  journal: Journal | undefined;
  report: DemoResult['report'];
} {
  const { twin, options } = session;
  // One analysis for the text, the JSON and the report: every output prints the same rows.
  const ownership = twin.ledgerAnalysis();
  // With the twin's restart count (journey.restarts), which the journey's text and JSON print.
  const ledger = ledgerReport(ownership, twin.ledgerReport().journey.restarts);
  const status = twin.status();
  const running = { apiServerVersion: status.apiServerVersion, ...status.versions };
  // The journal is kept under the cluster's name in its definition (kubeadm's is `kubernetes`, not the
  // scenario's), which the migration's own journal tells.
  const journal = new JournalMirror(
    session.stateDir,
    journaledName(migration) ?? session.scenario.clusterName,
  ).read();
  let report: DemoResult['report'];
  if (journal) {
    const model = buildReportModel(journal, { ownership, now: end });
    report = { html: join(options.dir, 'report.html'), markdown: join(options.dir, 'report.md') };
    writeFileSync(report.html, renderReportHtml(model));
    writeFileSync(report.markdown, renderReportMarkdown(model));
  }
  return { ledger, running, journal, report };
}

function journaledName(migration: MigrateResult): string | undefined {
  const o = migration.outcome;
  if (o.type === 'already-completed') return o.journal.cluster.name;
  return o.type === 'ran' ? o.result.journal.cluster.name : undefined;
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
