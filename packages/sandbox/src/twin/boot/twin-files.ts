import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { awsEnvironment, writeAwsEnv, type AwsEmulator } from '../../aws/index.js';
import { writeKubeconfig, type KubeApiServer, type KubeconfigEntry } from '../../apiserver/index.js';
import type { TwinIdentities } from './identities.js';

/**
 * The files a person uses a twin through: DIR/kubeconfig (a context per identity on the downstream cluster,
 * plus `rancher` for the management cluster) and DIR/aws.env (`source` it for the AWS CLI and SDKs).
 */
export interface TwinFiles {
  readonly kubeconfig: string;
  readonly awsEnv: string;
  readonly contexts: { readonly downstream: string; readonly rancher: string | undefined };
}

export function writeTwinFiles(options: {
  readonly dir: string;
  readonly clusterName: string;
  readonly downstream: KubeApiServer;
  readonly management: KubeApiServer | undefined;
  readonly identities: TwinIdentities;
  readonly aws: AwsEmulator;
}): TwinFiles {
  const { dir, clusterName, downstream, management, identities } = options;
  const entries: KubeconfigEntry[] = [
    downstream.kubeconfigEntry(identities.admin, { clusterName, contextName: clusterName }),
    downstream.kubeconfigEntry(identities.kcm, {
      clusterName,
      contextName: `${clusterName}-kube-controller-manager`,
    }),
    downstream.kubeconfigEntry(identities.ccm, {
      clusterName,
      contextName: `${clusterName}-cloud-controller-manager`,
    }),
    downstream.kubeconfigEntry(identities.node, { clusterName, contextName: `${clusterName}-node` }),
  ];
  if (management)
    entries.push(
      management.kubeconfigEntry(identities.rancher, { clusterName: 'rancher', contextName: 'rancher' }),
    );
  const kubeconfig = join(dir, 'kubeconfig');
  writeKubeconfig(kubeconfig, entries, clusterName);
  const awsEnv = join(dir, 'aws.env');
  writeAwsEnv(awsEnv, awsEnvironment(options.aws), [
    "The sandbox's AWS account as its operator sees it: the admin key, every service at one endpoint.",
    'This shell is on no instance, so instance metadata is off (no SDK waits for 169.254.169.254).',
    "A node's own environment (its instance metadata endpoint and role): uproot sandbox env --node NAME",
  ]);
  return {
    kubeconfig,
    awsEnv,
    contexts: { downstream: clusterName, rancher: management ? 'rancher' : undefined },
  };
}

/** Writes a file only its owner can read (tokens, the control endpoint's token). */
export function writePrivateFile(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
}
