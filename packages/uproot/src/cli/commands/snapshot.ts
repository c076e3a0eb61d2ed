/**
 * `uproot snapshot`: records a live cluster and its AWS account (read-only, no secrets) as a scenario file
 * that `uproot sandbox up --scenario FILE` and `uproot demo --scenario FILE` replay as a twin (docs/snapshot.md).
 * Exit 0 when written, 2 when it cannot run (bad flags, no access, a cluster the sandbox cannot model).
 */
import type { CommandRegistrar } from '../program.js';
import { ExitCode, InputError } from '../../errors/index.js';
import { snapshot } from '../../toolkit/snapshot.js';

interface SnapshotFlags {
  kubeconfig?: string;
  context?: string;
  rancherContext?: string;
  cluster?: string;
  clusterFile?: string;
  region?: string;
  clusterId?: string;
  out?: string;
  summary?: boolean;
}

export const registerSnapshotCommand: CommandRegistrar = (program, ctx) => {
  program
    .command('snapshot')
    .description(
      'Record the cluster and its AWS account (read-only, no secrets) as a scenario file the sandbox replays as a twin',
    )
    .option('--kubeconfig <file>', 'kubeconfig (default $KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', 'context of the cluster to record (default: current context)')
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
    .option('--cluster-id <id>', 'the kubernetes.io/cluster/<id> tag id (default: the instances\u2019 tag)')
    .option('--out <file>', 'the scenario file to write (default: print it)')
    .option('--summary', 'print what was captured and the file\u2019s size instead of the file')
    .action(
      ctx.run(async (opts: SnapshotFlags) => {
        if (!opts.out && !opts.summary && ctx.io.interactive) {
          throw new InputError('UP-SNAPSHOT-OUT', 'uproot snapshot writes a scenario file: give --out FILE', {
            location: { field: '--out' },
            hint: 'uproot snapshot --out my-cluster.yaml (or --summary to see what it captures)',
          });
        }
        const { out, summary, ...target } = opts;
        const run = await snapshot({
          ...target,
          ...(out ? { out } : {}),
          env: ctx.io.env,
          cwd: ctx.io.cwd,
        });
        if (summary) ctx.io.stdout(`${run.summary.join('\n')}\n`);
        else if (!run.file) ctx.io.stdout(run.text);
        if (run.file) {
          ctx.io.stderr(
            `wrote ${run.file} (${run.bytes} bytes); rehearse with: uproot sandbox up --scenario ${out}\n`,
          );
        }
        return ExitCode.ok;
      }),
    );
};
