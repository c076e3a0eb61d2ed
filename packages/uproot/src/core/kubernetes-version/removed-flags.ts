import { lastFlagValue } from '../model/flag-list.js';
import { atLeast, type KubernetesVersion } from '../../election/model/index.js';

/**
 * What the kubelet, kube-apiserver and kube-controller-manager of a given version do with the cloud-provider
 * flags Kubernetes removed, in upstream's words: the sandbox's components refuse with them, and preflight
 * quotes them. Undefined means the component starts. Flags are `--name=value` lists (last one wins).
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
  const provider = lastFlagValue(args, 'cloud-provider');
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
  const provider = lastFlagValue(args, 'cloud-provider');
  if (isInTree(provider) && atLeast(version, 1, 29)) {
    return commandFailed(`failed to validate cloud provider: unknown --cloud-provider : ${provider}`);
  }
  return undefined;
}

/**
 * The kube-controller-manager with an in-tree provider from 1.27: k8s.io/cloud-provider plugins.go
 * InitCloudProvider knows no "aws" ("unknown cloud provider %q"), wrapped by createCloudProvider
 * (cmd/kube-controller-manager/app/cloudproviders.go, "cloud provider could not be initialized: %v"). The KCM
 * builds its controller context only once it leads its lease (controllermanager.go `run`, called from
 * OnStartedLeading), logs "Error building controller context" and exits 1: every new leader crash-loops.
 */
export function kcmStartFailure(version: KubernetesVersion, args: readonly string[]): string | undefined {
  const provider = lastFlagValue(args, 'cloud-provider');
  if (!isInTree(provider) || !atLeast(version, 1, 27)) return undefined;
  return unknownProviderForKcm(provider);
}

/** The KCM's message for a provider it has no code for. */
export function unknownProviderForKcm(provider: string): string {
  return `cloud provider could not be initialized: unknown cloud provider ${JSON.stringify(provider)}`;
}
