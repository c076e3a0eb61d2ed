import type { Clock, Random } from 'uproot';
import type { LedgerEntry } from 'uproot/core';
import { podNetworkAvailable, type AwsEmulator } from '../../aws/index.js';
import { Ec2MetadataClient } from '../../cloud-controllers/ec2-metadata.js';
import { startSimulatedManager } from '../../managers/index.js';
import type { ManagerLauncher } from './manager-launcher.js';

/**
 * The launcher a real twin uses: src/sandbox/managers' simulated KCM/CCM, talking HTTP to the downstream API
 * server as its own identity and to the AWS emulator with the node's instance-role credentials (fetched as
 * IMDS would hand them out), so RBAC and IAM gaps bite as on a real cluster.
 */
export interface SimulatedLauncherOptions {
  readonly server: string;
  readonly certificateAuthority: string | undefined;
  readonly tokens: {
    readonly 'kube-controller-manager': string;
    readonly 'cloud-controller-manager': string;
  };
  readonly aws: AwsEmulator;
  readonly clock: Clock;
  readonly random: Random;
  readonly ledger: { record(entry: LedgerEntry): void };
}

export function simulatedManagerLauncher(options: SimulatedLauncherOptions): ManagerLauncher {
  return async (launch) => {
    const { aws, clock } = options;
    // The node's own metadata endpoint, reached from the host network (static pods, hostNetwork pods) or
    // from the pod network (one hop further: the token PUT's answer needs a hop limit of 2).
    const endpoint = await aws.openInstanceImds(launch.instanceId);
    const localAddress =
      launch.podNetworkAddress && (await podNetworkAvailable()) ? launch.podNetworkAddress : undefined;
    const instanceMetadata = (): Ec2MetadataClient =>
      new Ec2MetadataClient({
        endpoint,
        clock,
        network: aws.imdsNetwork,
        ...(localAddress ? { localAddress } : {}),
      });
    const manager = startSimulatedManager({
      component: launch.component,
      nodeName: launch.nodeName,
      args: launch.args,
      kubernetesVersion: launch.kubernetesVersion,
      kube: {
        server: options.server,
        token: tokenOf(launch.args, launch.component, options.tokens),
        certificateAuthority: options.certificateAuthority,
        // --use-service-account-credentials: per-controller tokens from TokenRequest, as the manager.
        requestTokens: true,
      },
      aws: {
        endpoint: aws.url,
        region: aws.region,
        instanceId: launch.instanceId,
        // Replaced by the role credentials from instanceMetadata whenever the manager talks to AWS.
        credentials: async () => {
          const c = aws.credentialsFor({ type: 'instance', instanceId: launch.instanceId });
          return {
            accessKeyId: c.accessKeyId,
            secretAccessKey: c.secretAccessKey,
            ...(c.sessionToken ? { sessionToken: c.sessionToken } : {}),
          };
        },
      },
      instanceMetadata,
      clock: options.clock,
      random: options.random,
      ledger: options.ledger,
      readFile: launch.readFile,
      onLog: launch.log,
    });
    return {
      identity: manager.identity,
      exited: manager.exited,
      get running() {
        return manager.running;
      },
      stop: async () => {
        await manager.stop();
      },
    };
  };
}

/**
 * The credentials a manager runs with. A static pod given the KCM's kubeconfig (kubeadm has no CCM
 * credentials, so seed 003's CCM reuses /etc/kubernetes/controller-manager.conf) acts as the KCM's user.
 */
export function tokenOf(
  args: readonly string[],
  component: keyof SimulatedLauncherOptions['tokens'],
  tokens: SimulatedLauncherOptions['tokens'],
): string {
  const kubeconfig = args
    .filter((a) => a.startsWith('--kubeconfig='))
    .at(-1)
    ?.slice('--kubeconfig='.length);
  return kubeconfig?.endsWith('/controller-manager.conf')
    ? tokens['kube-controller-manager']
    : tokens[component];
}
