/**
 * The shared CLI kit of the commands that talk to a cluster (migrate, rollback, status, verify, demo): the
 * target and execution flags, their translation to toolkit options, the run host, and the progress lines
 * printed for engine events. No migration logic here.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { CliIo } from './io.js';
import { outputOption } from './output.js';
import { isStepId, STEP_IDS, type StepId } from '../core/model/plan-types.js';
import type { EngineEvent } from '../engine/events.js';
import { describeGate } from '../engine/gates/evaluate-gate.js';
import type { Journal } from '../engine/journal/journal-schema.js';
import type { ExecutionFlags, RunHost } from '../toolkit/session/run-settings.js';
import type { TargetFlags } from '../toolkit/targets.js';

/** A step id: one of STEP_IDS, or a journey's upgrade-kubernetes-1.N. */
export function stepIdArg(value: string): StepId {
  if (isStepId(value)) return value;
  throw new InvalidArgumentError(`Allowed choices are ${STEP_IDS.join(', ')}, upgrade-kubernetes-1.N.`);
}

export interface TargetCliFlags {
  kubeconfig?: string;
  context?: string;
  rancherContext?: string;
  cluster?: string;
  clusterFile?: string;
  rancherInCluster?: boolean;
  downstreamFromRancher?: boolean;
}

export interface ExecutionCliFlags {
  gateTimeoutScale?: string;
  rkeBinary?: string;
  rkeTimeout?: string;
  manifestsOut?: string;
  nodeCommand?: string;
  nodeDeleteCommand?: string;
  nodeCommandTimeout?: string;
  manualDone?: StepId[];
  stateDir?: string;
  output: string;
}

export function addTargetOptions(cmd: Command, withClusterFile = true): Command {
  cmd
    .option(
      '--kubeconfig <file>',
      'kubeconfig of the cluster being migrated (default $KUBECONFIG, ~/.kube/config)',
    )
    .option('--context <name>', 'kubeconfig context of the cluster being migrated')
    .option(
      '--rancher-context <name>',
      "RKE2 under Rancher: the kubeconfig context of Rancher's management cluster",
    )
    .option(
      '--cluster <name>',
      'RKE2 under Rancher: the provisioning Cluster, NAME or NAMESPACE/NAME (fleet-default)',
    )
    .option(
      '--rancher-in-cluster',
      "RKE2 under Rancher, in a pod of Rancher's local cluster: reach it with the pod's service account",
    )
    .option(
      '--downstream-from-rancher',
      'RKE2 under Rancher: reach the cluster with the kubeconfig Rancher keeps for it (<cluster>-kubeconfig Secret)',
    );
  if (withClusterFile)
    cmd.option('--cluster-file <file>', 'RKE: cluster.yml; kubeadm: the manifest file or directory');
  return cmd;
}

export function addExecutionOptions(cmd: Command): Command {
  return cmd
    .option('--gate-timeout-scale <n>', 'multiply every gate deadline (e.g. 2 for slow clusters)')
    .option('--rke-binary <path>', 'RKE: the rke binary to run `rke up` with', 'rke')
    .option('--rke-timeout <seconds>', 'RKE: how long one `rke up` may take', '3600')
    .option(
      '--manifests-out <dir>',
      'kubeadm: write each node\u2019s files to DIR/<node>/<path> for you to distribute',
    )
    .option(
      '--node-command <template>',
      "kubeadm: write a file on a node, e.g. 'ssh {node} sudo tee {path}' (content on stdin)",
    )
    .option(
      '--node-delete-command <template>',
      "kubeadm: delete a file on a node, e.g. 'ssh {node} sudo rm -f {path}'",
    )
    .option('--node-command-timeout <seconds>', 'kubeadm: how long one node command may take', '120')
    .addOption(
      new Option(
        '--manual-done <step...>',
        'steps whose manual actions you have done (without a terminal)',
      ).argParser((value: string, previous: StepId[] | undefined) => [...(previous ?? []), stepIdArg(value)]),
    )
    .option('--state-dir <dir>', 'where the local journal copy is kept', '.uproot')
    .addOption(outputOption());
}

const num = (v: string | undefined): number | undefined => (v === undefined ? undefined : Number(v));

export function targetFlags(opts: TargetCliFlags): TargetFlags {
  return {
    ...(opts.kubeconfig ? { kubeconfig: opts.kubeconfig } : {}),
    ...(opts.context ? { context: opts.context } : {}),
    ...(opts.rancherContext ? { rancherContext: opts.rancherContext } : {}),
    ...(opts.cluster ? { cluster: opts.cluster } : {}),
    ...(opts.clusterFile ? { clusterFile: opts.clusterFile } : {}),
    ...(opts.rancherInCluster ? { rancherInCluster: true } : {}),
    ...(opts.downstreamFromRancher ? { downstreamFromRancher: true } : {}),
  };
}

export function executionFlags(opts: ExecutionCliFlags): ExecutionFlags & { stateDir?: string } {
  const out: Record<string, unknown> = {
    gateTimeoutScale: num(opts.gateTimeoutScale),
    rkeBinary: opts.rkeBinary,
    rkeTimeoutSeconds: num(opts.rkeTimeout),
    manifestsOut: opts.manifestsOut,
    nodeCommand: opts.nodeCommand,
    nodeDeleteCommand: opts.nodeDeleteCommand,
    nodeCommandTimeoutSeconds: num(opts.nodeCommandTimeout),
    manualDone: opts.manualDone,
    stateDir: opts.stateDir,
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as ExecutionFlags;
}

export function hostOf(io: CliIo): RunHost {
  return {
    cwd: io.cwd,
    env: io.env,
    interactive: io.interactive,
    ...(io.confirm ? { confirm: (q: string) => io.confirm!(q) } : {}),
    ...(io.signal ? { signal: io.signal } : {}),
  };
}

const seconds = (ms: number): string =>
  ms >= 60_000 ? `${Math.round(ms / 6_000) / 10}m` : `${Math.round(ms / 100) / 10}s`;
export const indent = (text: string, pad = '      '): string =>
  text
    .split('\n')
    .map((l) => pad + l)
    .join('\n');

/** One progress line (or a few) per engine event, for a person watching stderr. */
export function renderEvent(event: EngineEvent): string {
  switch (event.type) {
    case 'step-started':
      return `\n→ ${event.step}: ${event.title}${event.resumed ? ' (resumed)' : ''}\n`;
    case 'change-done':
      return `  ✓ ${event.description}${event.outcome === 'unchanged' ? ' (already done)' : ''}${event.detail ? ` — ${event.detail}` : ''}\n`;
    case 'gate-started':
      return `  … ${describeGate(event.gate)}${event.timeoutMs !== undefined ? ` (up to ${seconds(event.timeoutMs)})` : ''}\n`;
    case 'gate-waiting':
      return `      waiting: ${event.reason}\n`;
    case 'gate-pulse':
      return ''; // shown by progressPrinter: a live line, or a timestamped "still waiting" line
    case 'gate-finished':
      return event.result.type === 'passed'
        ? `  ✓ ${describeGate(event.gate)}${event.result.after >= 1000 ? ` after ${seconds(event.result.after)}` : ''}${event.result.detail ? ` — ${event.result.detail}` : ''}\n`
        : `  ✗ ${describeGate(event.gate)}: ${event.result.type === 'failed' ? event.result.reason : `timed out; last: ${event.result.last}`}\n      fix: ${event.result.fix}\n`;
    case 'step-verified':
      return `  ✓ ${event.step} verified\n`;
    case 'step-failed':
      return `  ✗ ${event.step} stopped: ${event.reason}\n${event.fix ? `      fix: ${event.fix}\n` : ''}`;
    case 'manual-action':
      return `  ! ${event.step} needs a person:\n${indent(event.instructions)}\n`;
    case 'undo-started':
      return `\n← undo ${event.step}: ${event.title}\n`;
    case 'undo-done':
      return `  ✓ ${event.description} — ${event.detail}\n`;
    case 'step-rolled-back':
      return `  ✓ ${event.step} rolled back\n`;
    case 'note':
      return `note: ${event.message}\n`;
  }
}

/**
 * A pulse line is printed without a terminal when the last progress line is at least this old (run clock).
 * The gate runner looks at least every 15 s ±10% (DEFAULT_GATE_BACKOFF), so a line comes within 30 s.
 */
export const PULSE_QUIET_MS = 13_000;

/** `1m05s` of `10m`: a gate's elapsed time against its limit. */
export function waitedText(elapsedMs: number, timeoutMs: number | undefined): string {
  return `${clockText(elapsedMs)}${timeoutMs !== undefined ? ` of ${clockText(timeoutMs)}` : ''}`;
}

function clockText(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const [h, m, sec] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m`;
  return m > 0 ? `${m}m${String(sec).padStart(2, '0')}s` : `${sec}s`;
}

export interface ProgressOptions {
  /** The run's clock: timestamps and the pulse's quiet time are its time (virtual in tests). */
  readonly now: () => number;
  /** `-o json|yaml`: one JSON object per event on stderr, each with its time `at`. */
  readonly structured: boolean;
  /** A terminal: the latest wait is a live line rewritten in place. */
  readonly live: boolean;
}

/**
 * The progress display of a run on stderr (stdout keeps the result). Text at a terminal: renderEvent's lines
 * and, while a gate waits, one live line (gate, elapsed of limit, latest condition) rewritten in place.
 * Text without a terminal: renderEvent's lines, and a timestamped "still waiting" line whenever nothing was
 * printed for PULSE_QUIET_MS. Structured: every event as a JSON line with `at`, pulses at the same pace.
 */
export function progressPrinter(
  write: (text: string) => void,
  options: ProgressOptions,
): { readonly onEvent: (event: EngineEvent) => void; readonly end: () => void } {
  let lastLine = options.now();
  let liveShown = false;
  const clearLive = (): void => {
    if (liveShown) write('\r\x1b[2K');
    liveShown = false;
  };
  const onEvent = (event: EngineEvent): void => {
    const now = options.now();
    const isPulse = event.type === 'gate-pulse';
    if (options.structured) {
      if (isPulse && now - lastLine < PULSE_QUIET_MS) return;
      lastLine = now;
      write(`${JSON.stringify({ at: new Date(now).toISOString(), ...event })}\n`);
      return;
    }
    const waiting = event.type === 'gate-pulse' || event.type === 'gate-waiting' ? event : undefined;
    if (options.live) {
      clearLive();
      write(renderEvent(event));
      if (waiting) {
        const line = `  … ${describeGate(waiting.gate)}: ${waitedText(waiting.elapsedMs ?? 0, waiting.timeoutMs)} — ${waiting.reason}`;
        write(line.length > 160 ? `${line.slice(0, 157)}...` : line);
        liveShown = true;
      }
      return;
    }
    if (isPulse) {
      if (now - lastLine < PULSE_QUIET_MS) return;
      write(
        `      ${new Date(now).toISOString()} still waiting (${waitedText(event.elapsedMs, event.timeoutMs)}): ${event.reason}\n`,
      );
    } else {
      write(renderEvent(event));
    }
    lastLine = now;
  };
  return { onEvent, end: clearLive };
}

export function journalSummary(journal: Journal): unknown {
  return {
    cluster: journal.cluster,
    location: journal.location,
    revision: journal.revision,
    steps: journal.steps.map((s) => ({ id: s.id, state: s.state })),
  };
}
