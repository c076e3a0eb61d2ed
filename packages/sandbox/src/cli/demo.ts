import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  type CommandContext,
  type CommandRegistrar,
  parseOutputFormat,
  renderDocument,
  hostOf,
  renderEvent,
  verifyText,
  migrateTable,
  preflightTable,
  statusTable,
} from 'uproot/cli';
import { InputError } from 'uproot';
import { controllerRowText, parseKubernetesVersion, resolveTarget, type ControllerRow } from 'uproot/core';
import { loadScenario, parseFaultsFlag, type Faults } from '../scenarios/index.js';
import { runDemo, type DemoResult } from '../demo/run-demo.js';
import { runFleetDemo, type FleetDemoResult } from '../demo/run-fleet-demo.js';
import { FLEET_SCENARIO } from '../fleet/serve-fleet.js';

export const registerDemoCommand: CommandRegistrar = (program, ctx) => {
  program
    .command('demo')
    .description(
      'Migrate an embedded twin of a Rancher RKE2 (or RKE) cluster on AWS end to end: preflight, migrate, verify, report',
    )
    .option(
      '--scenario <name|file>',
      'twin scenario (see `uproot sandbox up --help` and docs/sandbox.md)',
      'rke2-intree',
    )
    .option(
      '--time-scale <x>',
      'run in real time sped up X times (e.g. 50), to watch the twin with kubectl; default: virtual time, whose figures do not depend on how busy the machine is',
    )
    .option(
      '--target-version <version>',
      'migrate, then upgrade one minor at a time to this Kubernetes version',
    )
    .option('--nodes <n>', 'total node count (control-plane nodes as the scenario says)')
    .option('--clusters <n>', 'with --scenario fleet: how many downstream clusters', '5')
    .option('--parallel <n>', 'with --scenario fleet: Jobs running at once', '4')
    .option('--dir <dir>', 'where the twin and the report go (default: a new temporary directory)')
    .option(
      '--faults [spec]',
      'turn faults on: API 5xx/429/latency/watch drops, a node NotReady mid-roll, a crash-looping CCM, AWS throttling (docs/sandbox.md "Faults"); no value: the default mix',
    )
    .option('-o, --output <format>', 'text or json', 'text')
    .action(
      ctx.run(
        async (opts: {
          scenario: string;
          timeScale?: string;
          nodes?: string;
          targetVersion?: string;
          dir?: string;
          output: string;
          clusters: string;
          parallel: string;
          faults?: string | true;
        }) => {
          const format = parseOutputFormat(opts.output, ['text', 'json']);
          const faults = demoFaults(opts.faults, opts.scenario);
          const timeScale = opts.timeScale === undefined ? 50 : Number(opts.timeScale);
          if (!(timeScale > 0 && timeScale <= 1000)) {
            throw new InputError(
              'UP-DEMO-TIME-SCALE',
              `--time-scale must be a number from 0 to 1000, got "${opts.timeScale}"`,
              {
                location: { field: '--time-scale', value: opts.timeScale },
                hint: 'try --time-scale 50',
              },
            );
          }
          const nodes = opts.nodes === undefined ? undefined : Number(opts.nodes);
          if (nodes !== undefined && !(Number.isInteger(nodes) && nodes > 0)) {
            throw new InputError(
              'UP-DEMO-NODES',
              `--nodes must be a positive whole number, got "${opts.nodes}"`,
              {
                location: { field: '--nodes', value: opts.nodes },
              },
            );
          }
          // Every flag is judged before a twin starts or a folder is made: a refusal leaves nothing behind.
          if (opts.scenario === FLEET_SCENARIO) {
            positiveWhole(opts.clusters, '--clusters');
            positiveWhole(opts.parallel, '--parallel');
          } else checkTargetVersion(opts.scenario, opts.targetVersion, ctx.io.cwd);
          const dir = opts.dir ? resolve(ctx.io.cwd, opts.dir) : mkdtempSync(join(tmpdir(), 'uproot-demo-'));
          const text = format === 'text';
          const say = (line: string): void => {
            if (text) ctx.io.stderr(`${line}\n`);
          };
          if (opts.scenario === FLEET_SCENARIO)
            return runFleet(ctx, opts, { dir, timeScale, nodes, text, say });
          const result = await runDemo(
            {
              scenario: opts.scenario,
              timeScale,
              dir,
              ...(nodes ? { nodes } : {}),
              ...(opts.targetVersion ? { targetVersion: opts.targetVersion } : {}),
              ...(faults ? { faults } : {}),
            },
            hostOf(ctx.io),
            {
              virtualTime: opts.timeScale === undefined,
              onProgress: (line) => say(`uproot demo: ${line}`),
              onEvent: (e) => {
                if (text) ctx.io.stderr(renderEvent(e));
              },
            },
          );
          ctx.io.stdout(text ? demoText(result) : renderDocument(demoJson(result), 'json'));
          return result.exitCode;
        },
      ),
    );
};

/** `--faults`, judged before anything starts; the fleet twin has no fault injection. */
function demoFaults(value: string | true | undefined, scenario: string): Faults | undefined {
  if (value === undefined) return undefined;
  if (scenario === FLEET_SCENARIO) {
    throw new InputError('UP-SANDBOX-FAULTS', '--faults applies to single-cluster scenarios, not fleet', {
      location: { field: '--faults', value: value === true ? '' : value },
      hint: 'leave --faults out with --scenario fleet, or pick another --scenario',
    });
  }
  return parseFaultsFlag(value);
}

/** `--scenario fleet`: the fleet twin and the fleet commands (src/sandbox/demo/run-fleet-demo.ts). */
async function runFleet(
  ctx: CommandContext,
  opts: { clusters: string; parallel: string; timeScale?: string },
  run: {
    dir: string;
    timeScale: number;
    nodes: number | undefined;
    text: boolean;
    say: (line: string) => void;
  },
): Promise<number> {
  const fleet = await runFleetDemo(
    {
      clusters: positiveWhole(opts.clusters, '--clusters'),
      parallel: positiveWhole(opts.parallel, '--parallel'),
      dir: run.dir,
      timeScale: run.timeScale,
      ...(run.nodes ? { nodes: run.nodes } : {}),
    },
    hostOf(ctx.io),
    { virtualTime: opts.timeScale === undefined, onProgress: (line) => run.say(`uproot demo: ${line}`) },
  );
  ctx.io.stdout(run.text ? fleetDemoText(fleet) : renderDocument(fleet, 'json'));
  return fleet.exitCode;
}

/** The scenario exists, and its cluster can go to --target-version as `uproot plan` would plan it. */
function checkTargetVersion(name: string, targetVersion: string | undefined, cwd: string): void {
  const { scenario } = loadScenario(name, { cwd });
  if (targetVersion === undefined || scenario.distribution === 'none') return;
  const running = scenario.upgrade?.kubernetesVersion ?? scenario.kubernetesVersion;
  resolveTarget(scenario.distribution, parseKubernetesVersion(running), targetVersion);
}

function positiveWhole(value: string, field: string): number {
  const n = Number(value);
  if (!(Number.isInteger(n) && n > 0)) {
    throw new InputError('UP-FLEET-FLAGS', `${field} must be a positive whole number, got "${value}"`, {
      location: { field, value },
    });
  }
  return n;
}

function fleetDemoText(r: FleetDemoResult): string {
  return [
    '',
    'fleet preflight:',
    preflightTable(r.preflight),
    'fleet migrate --as-jobs:',
    migrateTable(r.migration),
    '',
    'fleet status:',
    statusTable(r.status),
    `Fleet of ${r.status.rows.length} clusters in ${r.wallSeconds} s (${r.simulatedSeconds} simulated seconds). Report: ${r.report}`,
    '',
  ].join('\n');
}

function demoText(r: DemoResult): string {
  const lines = [
    '',
    verifyText(r.verify).trimEnd(),
    '',
    ...controllersText(r.ledger.rows),
    ...journeyText(r),
    restartsText(r),
    ...faultsText(r),
    '',
    `${r.scenario}: migration ${r.migration.outcome.type} in ${r.wallSeconds} s (${r.simulatedSeconds} simulated seconds).`,
  ];
  if (r.report) lines.push(`Report: ${r.report.html} (also ${r.report.markdown})`);
  return `${lines.join('\n')}\n`;
}

/** Every controller, from the twin's ledger: the migrated ones first, then the others (one account, uproot/core). */
function controllersText(rows: readonly ControllerRow[]): string[] {
  const width = Math.max(22, ...rows.map((row) => row.name.length + 1));
  const line = (row: ControllerRow): string => `  ${row.name.padEnd(width)} ${controllerRowText(row)}`;
  const others = rows.filter((row) => !row.migrated);
  return [
    'Migrated controllers (ownership from the twin\u2019s ledger; overlap must be 0):',
    ...rows.filter((row) => row.migrated).map(line),
    ...(others.length > 0
      ? ['Other controllers (leader migration does not move them):', ...others.map(line)]
      : []),
  ];
}

/** The twin's count of restarts, most per machine of each role (nodes/restart-count.ts). */
function restartsText(r: DemoResult): string {
  const { maxByRole } = r.ledger.journey.restarts;
  const roles = (['control-plane', 'etcd', 'worker'] as const).filter(
    (role) => maxByRole[role] !== undefined,
  );
  return `Restarts counted by the twin, most on one machine: ${roles.map((role) => `${role} ${maxByRole[role]}`).join(', ')}.`;
}

/** The versions the journey went through, and what the twin runs at the end (its own account). */
function journeyText(r: DemoResult): string[] {
  if (!r.journey) return [];
  const width = Math.max(...r.journey.hops.map((h) => h.step.length));
  const kubelets = Object.values(r.running.kubelets);
  const byVersion = new Map<string, number>();
  for (const v of kubelets) byVersion.set(v, (byVersion.get(v) ?? 0) + 1);
  const images = [
    ...new Set(
      Object.entries(r.running.controlPlanePods)
        .filter(([pod]) => /^kube-(apiserver|controller-manager|scheduler)-/.test(pod))
        .map(([, image]) => image.split(':').pop()),
    ),
  ];
  return [
    '',
    `Kubernetes ${r.journey.from} \u2192 ${r.journey.to}, one version step at a time:`,
    ...r.journey.hops.map((h) => `  ${h.step.padEnd(width)}  ${h.version.padEnd(18)} ${h.state}`),
    `The twin runs: /version ${r.running.apiServerVersion}; kubelets ${[...byVersion].map(([v, n]) => `${v} on ${n} of ${kubelets.length} nodes`).join(', ')}${images.length > 0 ? `; control-plane pod images tagged ${images.join(', ')}` : ''}.`,
  ];
}

/** The faults turned on, each with how often it fired (a configured fault that never triggered says 0). */
function faultsText(r: DemoResult): string[] {
  if (!r.faults) return [];
  return [
    `Faults (seed ${r.faults.seed}):`,
    ...r.faults.faults.map(
      (f) => `  ${f.fault.padEnd(14)} fired ${String(f.fired).padStart(5)}  ${f.detail}`,
    ),
  ];
}

function demoJson(r: DemoResult): unknown {
  return {
    scenario: r.scenario,
    exitCode: r.exitCode,
    preflight: { outcome: r.preflight.outcome },
    migration: r.migration.outcome.type,
    verify: r.verify,
    controllers: r.ledger.controllers,
    report: r.report,
    ...(r.person.length > 0 ? { person: r.person } : {}),
    journey: { ...r.journey, restarts: r.ledger.journey.restarts },
    running: r.running,
    wallSeconds: r.wallSeconds,
    simulatedSeconds: r.simulatedSeconds,
    ...(r.faults ? { faults: r.faults } : {}),
  };
}
