/**
 * `uproot snapshot` (issue 27): reads a live cluster and its AWS account the way preflight does (the same
 * readers, the same flags), adds route tables and load balancer details, and writes a scenario file the
 * sandbox replays as a twin. Read-only: GET/LIST on Kubernetes (plus preflight's SubjectAccessReviews, which
 * persist nothing) and Describe/Get/List on AWS. Nothing secret is read, so nothing secret is written.
 */
import { isAbsolute, resolve } from 'node:path';
import { stringify } from 'yaml';
import { RealClock } from '../clock/index.js';
import { InputError } from '../errors/index.js';
import { buildContext } from '../core/checks/index.js';
import {
  recordSnapshot,
  snapshotScenario,
  summarizeSnapshot,
  type SnapshotAwsExtras,
  type SnapshotScenario,
} from '../core/snapshot/index.js';
import { describeTarget } from '../adapters/kube/index.js';
import { readAwsSnapshotExtras } from '../adapters/aws/snapshot-reader.js';
import { writeFileAtomic } from '../adapters/files/atomic-write.js';
import { parseClusterRef } from '../core/distros/rke2/cluster-ref.js';
import { readPreflightSnapshot, type PreflightOptions } from './preflight.js';

export interface SnapshotOptions extends PreflightOptions {
  /** Where to write the scenario file; relative paths resolve against `cwd`. */
  readonly out?: string;
}

export interface SnapshotRun {
  readonly scenario: SnapshotScenario;
  /** The file's text (YAML). */
  readonly text: string;
  readonly bytes: number;
  /** The path written, absolute (when `out` was given). */
  readonly file?: string;
  readonly summary: readonly string[];
  readonly requests: { readonly kubernetes: number; readonly aws: number };
  readonly durationMs: number;
}

const HEADER = [
  '# Written by `uproot snapshot`: a record of a live cluster and its AWS account, replayed as a twin by',
  '# `uproot sandbox up --scenario FILE` and `uproot demo --scenario FILE` (docs/snapshot.md). It holds no',
  '# Secret data, tokens, client keys, AWS keys, kubeconfig credentials or instance user data.',
].join('\n');

export async function snapshot(options: SnapshotOptions): Promise<SnapshotRun> {
  const clock = options.clock ?? new RealClock();
  const started = clock.now();
  let extras: SnapshotAwsExtras | undefined;
  const reads = await readPreflightSnapshot({ ...options, clock }, async (clients, aws) => {
    options.onProgress?.('route tables, load balancers');
    const instances =
      aws.state === 'ok' && aws.value.instances.state === 'ok' ? aws.value.instances.value : [];
    const vpcIds = [...new Set(instances.map((i) => i.vpcId).filter((v): v is string => !!v))];
    const groupIds = [...new Set(instances.flatMap((i) => i.securityGroupIds))];
    extras = await readAwsSnapshotExtras(clients, vpcIds, groupIds);
  });
  const target = describeTarget(reads.downstream);
  const rancherCluster = options.cluster ? parseClusterRef(options.cluster) : undefined;
  const record = recordSnapshot({
    preflight: reads.snapshot,
    ...(extras ? { extras } : {}),
    takenAt: new Date(clock.now()).toISOString(),
    source: {
      ...(target.context ? { context: target.context } : {}),
      ...(target.server ? { server: target.server } : {}),
      ...(rancherCluster ? { rancherCluster: `${rancherCluster.namespace}/${rancherCluster.name}` } : {}),
    },
    ...(options.clusterId ? { clusterId: options.clusterId } : {}),
    ...(rancherCluster ? { fallbackClusterId: rancherCluster.name } : {}),
  });
  const profile = buildContext(reads.snapshot, {}).profile;
  const scenario = snapshotScenario(record, profile);
  if ('refused' in scenario) {
    throw new InputError(
      'UP-SNAPSHOT-DISTRO',
      `cannot snapshot this cluster as a twin: ${scenario.refused}`,
      {
        hint: 'uproot preflight still audits it; the sandbox models RKE2, RKE and kubeadm only',
      },
    );
  }
  const text = `${HEADER}\n${stringify(scenario, { lineWidth: 0 })}`;
  const bytes = Buffer.byteLength(text);
  let file: string | undefined;
  if (options.out) {
    file = isAbsolute(options.out) ? options.out : resolve(options.cwd ?? process.cwd(), options.out);
    writeFileAtomic(file, text);
  }
  return {
    scenario,
    text,
    bytes,
    ...(file ? { file } : {}),
    summary: summarizeSnapshot(record, bytes),
    requests: { kubernetes: reads.kubeRequests.snapshot().total, aws: reads.awsRequests.snapshot().total },
    durationMs: Math.max(0, clock.now() - started),
  };
}
