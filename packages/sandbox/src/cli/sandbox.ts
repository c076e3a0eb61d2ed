import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import {
  type CommandContext,
  type CommandRegistrar,
  parseOutputFormat,
  renderDocument,
  isSingleExecutable,
} from 'uproot/cli';
import { CLOCK_URL_VARIABLE, RealClock, type Clock } from 'uproot';
import { ExitCode, InputError } from 'uproot';
import { controllerRowText } from 'uproot/core';
import { loadScenario, parseFaultsFlag, withFaults } from '../scenarios/index.js';
import {
  callControl,
  CLOCK_PATH,
  readSandboxState,
  removeTwinFiles,
  serveTwin,
  SANDBOX_STATE_FILE,
  type LedgerReport,
  type SandboxState,
  type TwinStatus,
} from '../twin/index.js';
import { addRehearseCommand } from './sandbox-rehearse.js';
import { addEnvCommand } from './sandbox-env.js';
import { FLEET_SCENARIO, removeFleetFiles, serveFleet } from '../fleet/serve-fleet.js';

/**
 * `uproot sandbox`: run twins of RKE2, RKE and kubeadm clusters on AWS (`up`, `down`), apply an RKE
 * cluster.yml to one (`rke-up`), and look at a running one (`status`, `ledger`). The twin itself is
 * src/sandbox/twin; this file parses flags and prints.
 */

const DEFAULT_DIR = '.sandbox';

function sandboxDir(ctx: CommandContext, dir: string | undefined): string {
  return resolve(ctx.io.cwd, dir ?? DEFAULT_DIR);
}

function parsePositive(value: string, flag: string, integer: boolean): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new InputError(
      'UP-SANDBOX-FLAG',
      `${flag} must be a positive ${integer ? 'whole number' : 'number'}, not "${value}"`,
      {
        location: { field: flag, value },
        hint: integer ? `e.g. ${flag} 6` : `e.g. ${flag} 10 (ten simulated seconds per real second)`,
      },
    );
  }
  return n;
}

function fleetUsage(state: SandboxState): string {
  const lines = [
    `sandbox "${state.scenario}" is running (pid ${state.pid}): Rancher's local cluster and its downstream RKE2 clusters`,
    '',
    `  export KUBECONFIG=${state.kubeconfig}`,
    '',
    `  kubectl --context rancher get clusters.provisioning.cattle.io -A   # Rancher's local cluster`,
    `  uproot fleet preflight --rancher-context rancher --aws-env-dir ${state.awsEnv}`,
    `  uproot fleet migrate --rancher-context rancher --aws-env-dir ${state.awsEnv} --as-jobs --yes`,
    `  kubectl --context rancher -n uproot-system get jobs,pods            # the migration Jobs`,
    `  uproot fleet status --rancher-context rancher`,
  ];
  return `${lines.join('\n')}\n`;
}

function usage(state: SandboxState): string {
  if (state.scenario === FLEET_SCENARIO) return fleetUsage(state);
  const lines = [
    `sandbox "${state.scenario}" (${state.distribution}) is running (pid ${state.pid})`,
    '',
    `  export KUBECONFIG=${state.kubeconfig}`,
    `  source ${state.awsEnv}`,
    // Sped up, the twin's time runs away from this machine's: uproot follows the twin's (decision 0034).
    ...(state.timeScale !== 1
      ? [
          `  export ${CLOCK_URL_VARIABLE}=${state.control.url}${CLOCK_PATH}   # uproot runs at the twin's pace`,
        ]
      : []),
    '',
    `  kubectl get nodes                       # the downstream cluster (context ${state.contexts.downstream})`,
  ];
  if (state.contexts.rancher)
    lines.push(
      `  kubectl --context rancher get clusters.provisioning.cattle.io -A   # Rancher's management cluster`,
    );
  if (state.rkeConfig)
    lines.push(`  uproot sandbox rke-up --config ${state.rkeConfig}   # after editing cluster.yml`);
  lines.push('  aws ec2 describe-instances              # the AWS account');
  return `${lines.join('\n')}\n`;
}

async function control(
  state: SandboxState,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<unknown> {
  let answer: { status: number; body: unknown };
  try {
    answer = await callControl(state.control.url, state.control.token, method, path, body);
  } catch (error) {
    throw new InputError(
      'UP-SANDBOX-UNREACHABLE',
      `the sandbox's control endpoint ${state.control.url} does not answer`,
      {
        location: { field: 'control.url', value: state.control.url },
        hint: 'the sandbox is not running any more: start it again with `uproot sandbox up`',
        cause: error,
      },
    );
  }
  if (answer.status >= 300) {
    const message = (answer.body as { error?: string } | undefined)?.error ?? `HTTP ${answer.status}`;
    throw new InputError('UP-SANDBOX-CONTROL', `the sandbox refused ${method} ${path}: ${message}`, {
      hint: 'check DIR/sandbox.log; restart the sandbox if it is stuck',
    });
  }
  return answer.body;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function removeSandboxFiles(dir: string, state: SandboxState): void {
  if (state.scenario === FLEET_SCENARIO) removeFleetFiles(dir);
  else removeTwinFiles(dir);
}

/** The clock the supervision waits on (the host's, else real time). */
const clockOf = (ctx: CommandContext): Clock => ctx.io.clock ?? new RealClock();

interface UpOptions {
  scenario: string;
  clusters?: string;
  nodes?: string;
  timeScale: string;
  dir?: string;
  detach: boolean;
  foreground: boolean;
  faults?: string | true;
}

async function up(ctx: CommandContext, opts: UpOptions, argv: readonly string[]): Promise<number> {
  const dir = sandboxDir(ctx, opts.dir);
  const fleet = opts.scenario === FLEET_SCENARIO;
  const faults = opts.faults === undefined ? undefined : parseFaultsFlag(opts.faults);
  if (faults && fleet) {
    throw new InputError('UP-SANDBOX-FAULTS', '--faults applies to single-cluster scenarios, not fleet', {
      location: { field: '--faults', value: opts.faults === true ? '' : String(opts.faults) },
      hint: 'leave --faults out with --scenario fleet',
    });
  }
  const plain = fleet ? undefined : loadScenario(opts.scenario, { cwd: ctx.io.cwd });
  const loaded = plain && { ...plain, scenario: withFaults(plain.scenario, faults) };
  const clusters = opts.clusters === undefined ? 5 : parsePositive(opts.clusters, '--clusters', true);
  const timeScale = parsePositive(opts.timeScale, '--time-scale', false);
  const nodes = opts.nodes === undefined ? undefined : parsePositive(opts.nodes, '--nodes', true);
  mkdirSync(dir, { recursive: true });
  if (existsSync(resolve(dir, SANDBOX_STATE_FILE))) {
    const running = readSandboxState(dir);
    if (alive(running.pid) && running.pid !== process.pid) {
      throw new InputError(
        'UP-SANDBOX-RUNNING',
        `a sandbox is already running in ${dir} (pid ${running.pid})`,
        {
          location: { file: resolve(dir, SANDBOX_STATE_FILE) },
          hint: `stop it with \`uproot sandbox down --dir ${dir}\`, or use another --dir`,
        },
      );
    }
    removeSandboxFiles(dir, running);
  }
  if (opts.detach && !opts.foreground) return detach(ctx, dir, argv);

  const logPath = resolve(dir, 'sandbox.log');
  const fd = openSync(logPath, 'a');
  const clock = clockOf(ctx);
  const log = (line: string): void => {
    writeSync(fd, `${new Date(clock.now()).toISOString()} ${line}\n`);
  };
  // Ctrl-C and SIGTERM (`kill`, `uproot sandbox down` as a fallback) abort io.signal (src/cli/main.ts).
  const stop = new AbortController();
  ctx.io.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  const onReady = (state: SandboxState): void => {
    log(`ready: ${JSON.stringify({ ...state, control: { url: state.control.url } })}`);
    if (!opts.foreground)
      ctx.io.stdout(`${usage(state)}\nserving until Ctrl-C (or \`uproot sandbox down --dir ${dir}\`)\n`);
  };
  const serving = {
    dir,
    timeScale,
    ...(nodes !== undefined ? { nodes } : {}),
    signal: stop.signal,
    log,
    pid: process.pid,
    onReady,
  };
  try {
    if (loaded) await serveTwin({ ...serving, loaded });
    else await serveFleet({ ...serving, clusters });
  } finally {
    closeSync(fd);
  }
  if (!opts.foreground) ctx.io.stdout('sandbox stopped\n');
  return ExitCode.ok;
}

/** Starts `uproot sandbox up ... --foreground` in the background and waits until it is serving. */
async function detach(ctx: CommandContext, dir: string, argv: readonly string[]): Promise<number> {
  // The single executable is the CLI itself (its argv[1] is how it was called, not a script to run).
  const self = isSingleExecutable();
  const entry = self ? undefined : (ctx.io.env.UPROOT_CLI_ENTRY ?? process.argv[1]);
  if (!self && !entry)
    throw new InputError('UP-SANDBOX-DETACH', 'cannot find the uproot CLI to start in the background', {
      hint: 'run without --detach',
    });
  const logPath = resolve(dir, 'sandbox.log');
  const out = openSync(logPath, 'a');
  const args = [
    ...(entry !== undefined ? [...process.execArgv, entry] : []),
    ...argv.filter((a) => a !== '--detach'),
    '--foreground',
    '--dir',
    dir,
  ];
  const child = spawn(process.execPath, args, {
    detached: true,
    stdio: ['ignore', out, out],
    cwd: ctx.io.cwd,
    env: { ...ctx.io.env } as NodeJS.ProcessEnv,
  });
  closeSync(out);
  let exited: number | null | undefined;
  child.on('exit', (code) => (exited = code));
  child.unref();
  const clock = clockOf(ctx);
  const deadline = clock.now() + 120_000;
  while (clock.now() < deadline) {
    if (exited !== undefined) {
      ctx.io.stderr(`the sandbox exited at start (code ${String(exited)}); its log:\n${tail(logPath)}`);
      return ExitCode.failed;
    }
    if (existsSync(resolve(dir, SANDBOX_STATE_FILE))) {
      const state = readSandboxState(dir);
      if (state.pid === child.pid) {
        ctx.io.stdout(
          `${usage(state)}\nrunning in the background; stop it with \`uproot sandbox down --dir ${dir}\` (log: ${logPath})\n`,
        );
        return ExitCode.ok;
      }
    }
    await clock.sleep(100);
  }
  ctx.io.stderr(`the sandbox did not become ready within 2 minutes; its log:\n${tail(logPath)}`);
  return ExitCode.failed;
}

function tail(path: string): string {
  if (!existsSync(path)) return '';
  return `${readFileSync(path, 'utf8').split('\n').slice(-30).join('\n')}\n`;
}

async function down(ctx: CommandContext, opts: { dir?: string }): Promise<number> {
  const dir = sandboxDir(ctx, opts.dir);
  const state = readSandboxState(dir);
  const clock = clockOf(ctx);
  if (alive(state.pid)) {
    try {
      await callControl(state.control.url, state.control.token, 'POST', '/v1/shutdown');
    } catch {
      // The endpoint is gone but the process is not: fall back to a signal.
      process.kill(state.pid, 'SIGTERM');
    }
    const deadline = clock.now() + 30_000;
    while (alive(state.pid) && clock.now() < deadline) await clock.sleep(100);
    if (alive(state.pid)) {
      process.kill(state.pid, 'SIGTERM');
      await clock.sleep(2_000);
    }
    if (alive(state.pid)) {
      ctx.io.stderr(`the sandbox (pid ${state.pid}) did not stop\n`);
      return ExitCode.failed;
    }
  }
  removeSandboxFiles(dir, state);
  ctx.io.stdout(`sandbox in ${dir} stopped\n`);
  return ExitCode.ok;
}

async function rkeUp(ctx: CommandContext, opts: { config: string; dir?: string }): Promise<number> {
  const dir = sandboxDir(ctx, opts.dir);
  const state = readSandboxState(dir);
  const file = resolve(ctx.io.cwd, opts.config);
  if (!existsSync(file)) {
    throw new InputError('UP-RKE-CONFIG', `${opts.config} does not exist`, {
      location: { file: opts.config },
      hint: state.rkeConfig
        ? `the twin's cluster.yml is ${state.rkeConfig}`
        : 'give the path of a cluster.yml',
    });
  }
  const result = (await control(state, 'POST', '/v1/rke-up', {
    config: readFileSync(file, 'utf8'),
    file,
  })) as {
    ok: boolean;
    reason?: string;
    log: string[];
  };
  for (const line of result.log) ctx.io.stderr(`${line}\n`);
  if (!result.ok) {
    ctx.io.stderr(`rke up failed: ${result.reason ?? 'unknown reason'}\n`);
    return ExitCode.failed;
  }
  return ExitCode.ok;
}

async function ledger(ctx: CommandContext, opts: { dir?: string; output: string }): Promise<number> {
  const format = parseOutputFormat(opts.output, ['text', 'json']);
  const state = readSandboxState(sandboxDir(ctx, opts.dir));
  const doc = (await control(state, 'GET', '/v1/ledger')) as LedgerReport;
  if (format === 'json') {
    ctx.io.stdout(
      renderDocument({ controllers: doc.controllers, detail: doc.detail, journey: doc.journey }, 'json'),
    );
    return ExitCode.ok;
  }
  // The same rows, in the same order and words, as the demo and `uproot report` (uproot/core controllerRows).
  const width = Math.max(10, ...doc.rows.map((row) => row.name.length));
  const lines = [`${'CONTROLLER'.padEnd(width)}  OVERLAP(s)  MAX-GAP(s)`];
  for (const row of doc.rows)
    lines.push(
      row.state === 'running'
        ? `${row.name.padEnd(width)}  ${String(row.overlapSeconds).padStart(10)}  ${String(row.maxGapSeconds).padStart(10)}`
        : `${row.name.padEnd(width)}  ${controllerRowText(row)}`,
    );
  if (doc.rows.length === 0) lines.push('(no controller has run yet)');
  ctx.io.stdout(`${[...lines, ...restartLines(doc.journey.restarts.nodes)].join('\n')}\n`);
  return ExitCode.ok;
}

/** Each machine's restarts, as the twin counted them (twin/nodes/restart-count.ts). */
function restartLines(nodes: LedgerReport['journey']['restarts']['nodes']): string[] {
  if (nodes.length === 0) return [];
  const width = Math.max(7, ...nodes.map((n) => n.machine.length));
  return [
    '',
    `${'MACHINE'.padEnd(width)}  RESTARTS  PROCESSES`,
    ...nodes.map(
      (n) =>
        `${n.machine.padEnd(width)}  ${String(n.restarts).padStart(8)}  ${
          Object.entries(n.processes)
            .map(([p, c]) => `${p} ${c}`)
            .join(', ') || '-'
        }`,
    ),
  ];
}

async function status(ctx: CommandContext, opts: { dir?: string; output: string }): Promise<number> {
  const format = parseOutputFormat(opts.output, ['text', 'json']);
  const state = readSandboxState(sandboxDir(ctx, opts.dir));
  const s = (await control(state, 'GET', '/v1/status')) as TwinStatus;
  if (format === 'json') {
    ctx.io.stdout(renderDocument(s, 'json'));
    return ExitCode.ok;
  }
  const lines = [
    `scenario:   ${s.scenario} (${s.distribution} ${s.kubernetesVersion}), time ${s.time}`,
    `version:    ${s.apiServerVersion} (what /version reports)`,
    `nodes:      ${s.nodes.ready}/${s.nodes.registered} ready, ${s.nodes.withProviderId} with providerID, ${s.nodes.uninitialized} uninitialized, ${s.nodes.cordoned} cordoned`,
    'leases:',
    ...Object.entries(s.leases).map(([name, holder]) => `  ${name}: ${holder ?? '(none)'}`),
    'managers:',
    ...s.managers.map((m) => `  ${m.node} ${m.component}: ${m.state}, ${m.restarts} restart(s)`),
    ...(s.failing.length > 0
      ? ['failing:', ...s.failing.map((f) => `  ${f.node} ${f.component}: ${f.error}`)]
      : []),
  ];
  ctx.io.stdout(`${lines.join('\n')}\n`);
  return ExitCode.ok;
}

export const registerSandboxCommands: CommandRegistrar = (program: Command, ctx: CommandContext) => {
  const sandbox = program
    .command('sandbox')
    .description(
      'Run twins of RKE2, RKE and kubeadm clusters on AWS to rehearse a migration (docs/sandbox.md)',
    );

  sandbox
    .command('up')
    .description('Start a twin from a scenario and serve it until stopped')
    .option(
      '--scenario <name|file>',
      'a built-in scenario, a scenario YAML file, or `fleet` (Rancher with --clusters downstream clusters)',
      'rke2-intree',
    )
    .option('--clusters <n>', 'with --scenario fleet: how many downstream clusters', '5')
    .option('--nodes <n>', 'total number of nodes (control-plane nodes as the scenario says)')
    .option('--time-scale <x>', 'simulated seconds per real second', '1')
    .option('--dir <dir>', 'where the twin keeps kubeconfig, aws.env, sandbox.json and its log', DEFAULT_DIR)
    .option(
      '--faults [spec]',
      'turn faults on for the rehearsal (docs/sandbox.md "Faults"); no value: the default mix',
    )
    .option('--detach', 'start in the background and return once it is ready', false)
    .addOption(
      new Option('--foreground', 'serve in this process without printing (used by --detach)')
        .hideHelp()
        .default(false),
    )
    .action(ctx.run(async (opts: UpOptions) => up(ctx, opts, ['sandbox', 'up', ...rawUpArgs(opts)])));

  sandbox
    .command('down')
    .description('Stop the twin running in DIR and remove its files')
    .option('--dir <dir>', 'the directory it was started with', DEFAULT_DIR)
    .action(ctx.run(async (opts: { dir?: string }) => down(ctx, opts)));

  sandbox
    .command('rke-up')
    .description(
      'Apply an RKE cluster.yml to a running RKE twin, as `rke up` would; exits when the rollout is done',
    )
    .requiredOption('--config <file>', 'the cluster.yml to apply')
    .option('--dir <dir>', 'the directory the twin was started with', DEFAULT_DIR)
    .action(ctx.run(async (opts: { config: string; dir?: string }) => rkeUp(ctx, opts)));

  sandbox
    .command('ledger')
    .description("Show the running twin's controller ownership: overlap and largest gap per controller")
    .option('--dir <dir>', 'the directory the twin was started with', DEFAULT_DIR)
    .option('-o, --output <format>', 'text or json', 'text')
    .action(ctx.run(async (opts: { dir?: string; output: string }) => ledger(ctx, opts)));

  sandbox
    .command('status')
    .description('Show the running twin: nodes, leases, controller managers')
    .option('--dir <dir>', 'the directory the twin was started with', DEFAULT_DIR)
    .option('-o, --output <format>', 'text or json', 'text')
    .action(ctx.run(async (opts: { dir?: string; output: string }) => status(ctx, opts)));

  addRehearseCommand(sandbox, ctx);
  addEnvCommand(sandbox, ctx, DEFAULT_DIR);
};

/** The `up` flags again, for the background process. */
function rawUpArgs(opts: UpOptions): string[] {
  return [
    '--scenario',
    opts.scenario,
    '--time-scale',
    opts.timeScale,
    ...(opts.clusters !== undefined ? ['--clusters', opts.clusters] : []),
    ...(opts.nodes !== undefined ? ['--nodes', opts.nodes] : []),
    ...(opts.faults !== undefined
      ? [opts.faults === true ? '--faults=default' : `--faults=${opts.faults}`]
      : []),
    ...(opts.detach ? ['--detach'] : []),
  ];
}
