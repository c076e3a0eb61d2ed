import { atLeast, type KubernetesVersion } from '../../../core/kubernetes-version/index.js';
import { flagValue } from '../nodes/node-config.js';

/**
 * What a kubelet or kube-apiserver of a given version does with the cloud-provider flags Kubernetes removed,
 * as the process reports it on exit. Undefined means it starts. (The kube-controller-manager's rule lives with
 * the simulated managers: src/sandbox/managers/manager-settings.ts.)
 */

export interface StartFailure {
  /** The line the process logs before it exits 1 (klog / cobra form). */
  readonly log: string;
  /** The error alone, for statuses and messages. */
  readonly error: string;
}

/** In-tree providers are gone from 1.27 (the AWS one, kubernetes/kubernetes#115838). */
function isInTree(provider: string | undefined): provider is string {
  return provider !== undefined && provider !== '' && provider !== 'external';
}

/**
 * component-base cli.Run prints an error that happens once logging is set up as
 * `"command failed" err="..."` (k8s.io/component-base/cli/run.go, logged from run.go:74 in kubelets of
 * 1.27-1.33, as in rancher/rke2#6626), and a flag-parsing error before that as `Error: ...`.
 */
function commandFailed(error: string): StartFailure {
  return { log: `"command failed" err="${error.replace(/"/g, '\\"')}"`, error };
}

/**
 * The kubelet with `--cloud-provider=aws` from 1.27: its run() initialises the named provider through
 * k8s.io/cloud-provider InitCloudProvider, which knows no "aws" any more ("unknown cloud provider %q",
 * plugins.go), and Run wraps it as "failed to run Kubelet: %w" (cmd/kubelet/app/server.go); reported by
 * rancher/rke2#4183 (v1.27.1) and #6626. From 1.34 (kubernetes/kubernetes#130161) the kubelet no longer
 * initialises a provider and NewMainKubelet refuses any value but "" and "external" (pkg/kubelet/kubelet.go),
 * wrapped by RunKubelet's "failed to create kubelet: %w". The kubelet exits 1; systemd, or RKE2's supervisor
 * (pkg/podexecutor/staticpod.go: "Kubelet exited", retried every 5 s), starts it again, and it fails again.
 */
export function kubeletStartFailure(
  version: KubernetesVersion,
  args: readonly string[],
): StartFailure | undefined {
  const provider = flagValue(args, 'cloud-provider');
  if (!isInTree(provider) || !atLeast(version, 1, 27)) return undefined;
  const quoted = JSON.stringify(provider);
  if (atLeast(version, 1, 34)) {
    return commandFailed(
      `failed to run Kubelet: failed to create kubelet: cloud provider ${quoted} was specified, but built-in cloud providers are disabled. Please set --cloud-provider=external and migrate to an external cloud provider`,
    );
  }
  return commandFailed(`failed to run Kubelet: unknown cloud provider ${quoted}`);
}

/**
 * kube-apiserver and the cloud-provider flags:
 * - 1.33+: `--cloud-provider` and `--cloud-config` are gone (kubernetes/kubernetes#130162); pflag stops at the
 *   first one with "unknown flag: --cloud-provider", printed by cobra as `Error: ...` (seen in the field:
 *   rootless-containers/usernetes#371, vexxhost/capo-image-elements#47), whatever the value.
 * - 1.29-1.32: CreateKubeAPIServerConfig runs validateCloudProviderOptions (cmd/kube-apiserver/app/server.go):
 *   "" and "external" pass (their feature gates default on from 1.29), any other name is
 *   "unknown --cloud-provider : <name>", returned as "failed to validate cloud provider: %w".
 * - 1.27-1.28: the flag is accepted and unused (the apiserver initialises no provider), so it starts.
 */
export function apiserverStartFailure(
  version: KubernetesVersion,
  args: readonly string[],
): StartFailure | undefined {
  if (atLeast(version, 1, 33)) {
    const removed = args.find((a) => /^--cloud-(provider|config)(=|$)/.test(a));
    if (!removed) return undefined;
    const error = `unknown flag: ${removed.split('=')[0]}`;
    return { log: `Error: ${error}`, error };
  }
  const provider = flagValue(args, 'cloud-provider');
  if (isInTree(provider) && atLeast(version, 1, 29)) {
    return commandFailed(`failed to validate cloud provider: unknown --cloud-provider : ${provider}`);
  }
  return undefined;
}
