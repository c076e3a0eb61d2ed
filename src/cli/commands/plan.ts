/**
 * `uproot plan`: read a cluster definition (RKE2 Cluster, RKE cluster.yml, kubeadm manifests), print the
 * ordered migration, and with --out write every artifact for review. Works offline. Nothing is written
 * unless the whole plan succeeded and the output directory is empty or a previous uproot output.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CommandRegistrar } from '../program.js';
import { parseOutputFormat, renderDocument } from '../output.js';
import { ExitCode, InputError } from '../../errors/index.js';
import { parseDistro } from '../../core/distros/detect.js';
import type { SourceFile } from '../../core/distros/shared/yaml-source.js';
import { planClusterFiles, type PlanRequest } from '../../core/plan/plan-cluster.js';
import { OUT_MANIFEST, planOutDir, type OutDirListing, type OutFile } from '../../core/plan/out-dir.js';
import { renderPlanText } from '../../core/plan/render-text.js';
import type { MigrationPlan } from '../../core/plan/plan-types.js';

/** The examples shipped with the package (resolved from this module, not the working directory). */
export const EXAMPLES: Readonly<Record<string, string>> = {
  rke2: 'rke2-cluster.yaml',
  rke: 'rke-cluster.yml',
  'rancher-rke': 'rancher-rke-cluster.yaml',
  kubeadm: 'kube-controller-manager.yaml',
};

export function examplesDir(): string {
  return fileURLToPath(new URL('../../../examples/', import.meta.url));
}

interface PlanCliOptions {
  clusterFile?: string[];
  example?: string;
  distro?: string;
  targetVersion?: string;
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
      '--cluster-file <file...>',
      'the cluster definition: a Rancher Cluster YAML, cluster.yml, or kubeadm manifests (files or a directory)',
    )
    .option('--example <name>', `plan a built-in example: ${Object.keys(EXAMPLES).join(', ')}`)
    .option('--distro <distro>', 'rke2, rke or kubeadm (detected when left out)')
    .option(
      '--target-version <version>',
      'Kubernetes release to end on (default: the current one; at most the next minor)',
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
    .option('--with-nodeipam', 'kubeadm: migrate the Node IPAM controller too')
    .option(
      '--out <dir>',
      'write every artifact (edited files per step, values, configs, RUNBOOK.md) to this directory',
    )
    .option('-o, --output <format>', 'text, json or yaml', 'text')
    .action(
      ctx.run(async (opts: PlanCliOptions) => {
        const format = parseOutputFormat(opts.output);
        const files = readClusterFiles(opts, ctx.io.cwd);
        const request: PlanRequest = {
          ...(opts.distro !== undefined ? { distro: parseDistro(opts.distro) } : {}),
          ...(opts.targetVersion !== undefined ? { targetVersion: opts.targetVersion } : {}),
          ...(opts.ccmImageTag !== undefined ? { ccmImageTag: opts.ccmImageTag } : {}),
          ...(opts.keepAwsNodeNaming !== undefined ? { keepAwsNodeNaming: opts.keepAwsNodeNaming } : {}),
          ...(opts.useInstanceMetadataHostname !== undefined
            ? { useInstanceMetadataHostname: opts.useInstanceMetadataHostname }
            : {}),
          ...(opts.withNodeipam ? { withNodeIpam: true } : {}),
        };
        const { plan } = planClusterFiles(files, request);
        if (opts.out !== undefined) {
          const written = writeOutDir(resolve(ctx.io.cwd, opts.out), opts.out, plan);
          ctx.io.stderr(`wrote ${written} file(s) to ${opts.out}\n`);
        }
        ctx.io.stdout(format === 'text' ? renderPlanText(plan) : renderDocument(plan, format));
        return ExitCode.ok;
      }),
    );
};

function readClusterFiles(opts: PlanCliOptions, cwd: string): SourceFile[] {
  if (opts.example !== undefined) {
    if (opts.clusterFile !== undefined) {
      throw new InputError('UP-PLAN-ARGS', '--example and --cluster-file cannot be combined', {
        location: { field: '--example', value: opts.example },
        hint: 'give either a cluster file or the name of a built-in example',
      });
    }
    const name = EXAMPLES[opts.example];
    if (!name) {
      throw new InputError('UP-PLAN-EXAMPLE', `there is no built-in example "${opts.example}"`, {
        location: { field: '--example', value: opts.example },
        hint: `use one of: ${Object.keys(EXAMPLES).join(', ')}`,
      });
    }
    const path = join(examplesDir(), name);
    return [{ path: `examples/${name}`, text: readText(path, `examples/${name}`) }];
  }
  if (!opts.clusterFile || opts.clusterFile.length === 0) {
    throw new InputError('UP-PLAN-ARGS', 'no cluster definition given', {
      location: { field: '--cluster-file' },
      hint: 'give --cluster-file FILE (or --example rke2 to try it)',
    });
  }
  return opts.clusterFile.flatMap((given) => {
    const path = resolve(cwd, given);
    if (existsSync(path) && statSync(path).isDirectory()) {
      const entries = readdirSync(path)
        .filter((f) => /\.ya?ml$/i.test(f))
        .sort();
      if (entries.length === 0) {
        throw new InputError('UP-PLAN-FILE', `directory ${given} holds no .yaml or .yml files`, {
          location: { file: given },
          hint: 'give the manifests directory (e.g. /etc/kubernetes/manifests copied from a control-plane node)',
        });
      }
      return entries.map((f) => ({ path: join(given, f), text: readText(join(path, f), join(given, f)) }));
    }
    return [{ path: given, text: readText(path, given) }];
  });
}

function readText(path: string, shown: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new InputError(
      'UP-PLAN-FILE',
      `cannot read ${shown}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      {
        location: { file: shown },
        hint: 'check the path given to --cluster-file',
        cause: error,
      },
    );
  }
}

function listFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.push(relative(root, full).split('\\').join('/'));
    }
  };
  walk(root);
  return out;
}

/** Checks the directory first (refusing to clobber anything uproot did not write), then writes. */
function writeOutDir(dir: string, shown: string, plan: MigrationPlan): number {
  if (existsSync(dir) && !statSync(dir).isDirectory()) {
    throw new InputError('UP-PLAN-OUT-NOT-DIR', `${shown} exists and is not a directory`, {
      location: { file: shown },
      hint: 'give a new or empty directory to --out',
    });
  }
  const exists = existsSync(dir);
  const files = exists ? listFiles(dir) : [];
  const manifestPath = join(dir, OUT_MANIFEST);
  const listing: OutDirListing = {
    exists,
    files,
    ...(files.includes(OUT_MANIFEST) ? { manifest: readFileSync(manifestPath, 'utf8') } : {}),
  };
  const outFiles: OutFile[] = [
    ...plan.artifacts.map((a) => ({ path: a.path, content: a.content })),
    { path: 'plan.json', content: renderDocument(plan, 'json') },
  ];
  const decision = planOutDir(shown, listing, outFiles);
  for (const backup of decision.backups) {
    const to = join(dir, backup.to);
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(join(dir, backup.from), to);
  }
  for (const file of decision.writes) {
    const to = join(dir, file.path);
    mkdirSync(dirname(to), { recursive: true });
    writeFileSync(to, file.content, { mode: 0o644 });
  }
  return decision.writes.length;
}
