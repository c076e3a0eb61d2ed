import {
  atLeast,
  type KubernetesVersion,
  isEcrImage,
  lastFlagValue,
  normalizeImageReference,
  tryParseImageReference,
} from 'uproot/core';

/**
 * Pulling from ECR without the in-tree credential provider. Up to 1.26 the kubelet fetched ECR credentials
 * itself (pkg/credentialprovider/aws, with the node's instance role); 1.27 removed that
 * (kubernetes/kubernetes#116329), so from 1.27 a kubelet without `--image-credential-provider-config` (the
 * ecr-credential-provider plugin) pulls anonymously and ECR answers 401. The runtime's words, wrapped by the
 * kubelet's "Failed to pull image" event: containerd 1.7 "pull access denied, repository does not exist or may
 * require authorization: authorization failed: no basic auth credentials" (kubernetes/kops#16762), containerd
 * 1.6 "pulling from host <host> failed with status code [manifests <tag>]: 401 Unauthorized"
 * (rancher/rke2#3462), Docker (cri-dockerd) "no basic auth credentials".
 */
export function imagePullError(
  image: string,
  kubelet: { readonly version: KubernetesVersion; readonly args: readonly string[] },
  containerRuntimeVersion: string,
): string | undefined {
  if (!isEcrImage(image) || !atLeast(kubelet.version, 1, 27)) return undefined;
  if (lastFlagValue(kubelet.args, 'image-credential-provider-config')) return undefined;
  const parsed = tryParseImageReference(image);
  if (!parsed) return undefined; // never reaches a registry: the kubelet reports InvalidImageName
  // A reference without tag or digest pulls :latest; the registry API asks for /v2/<path>/manifests/<tag|digest>.
  const ref = parsed.tag || parsed.digest ? image : `${image}:latest`;
  const { domain: host = '', path: repo } = normalizeImageReference(parsed);
  const manifest = parsed.digest ?? parsed.tag ?? 'latest';
  const runtime = containerRuntimeVersion.split('://');
  if (runtime[0] === 'docker') {
    return `rpc error: code = Unknown desc = Error response from daemon: Head "https://${host}/v2/${repo}/manifests/${manifest}": no basic auth credentials`;
  }
  const containerd17 = /^1\.(\d+)/.exec(runtime[1] ?? '')?.[1];
  const cause =
    containerd17 !== undefined && Number(containerd17) >= 7
      ? 'pull access denied, repository does not exist or may require authorization: authorization failed: no basic auth credentials'
      : `pulling from host ${host} failed with status code [manifests ${manifest}]: 401 Unauthorized`;
  return `rpc error: code = Unknown desc = failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": ${cause}`;
}
