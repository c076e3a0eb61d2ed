/**
 * ecr-credentials: with the in-tree provider gone (kubelet --cloud-provider=external, and for good in 1.27,
 * kubernetes#116329) the kubelet no longer fetches ECR credentials itself; it needs the
 * `ecr-credential-provider` plugin (--image-credential-provider-config/--image-credential-provider-bin-dir).
 * Kubelet flags are not visible through the API, except where the distribution records them (RKE2's
 * rke2.io/node-args annotation) or the cluster definition sets them.
 */
import { tryParseImageReference } from '../model/index.js';
import { pass, skip, warn, type CheckResult, type Fix } from './check-result.js';
import { plural, type CheckContext } from './check-context.js';

const ID = 'ecr-credentials';
const ECR_REGISTRY = /^(\d{12})\.dkr\.ecr(-fips)?\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$/;

/** Whether the image's registry is an ECR registry (`<account>.dkr.ecr[-fips].<region>.amazonaws.com[.cn]`). */
export function isEcrImage(image: string): boolean {
  const registry = tryParseImageReference(image)?.domain;
  return registry !== undefined && ECR_REGISTRY.test(registry);
}

export function checkEcrCredentials(ctx: CheckContext): CheckResult {
  const images = ctx.snapshot.kube.images;
  if (images.state === 'unavailable') return skip(ID, images.reason);
  const ecr = images.value.filter((i) => isEcrImage(i.image));
  if (ecr.length === 0) return pass(ID, 'no pod runs an image from ECR');
  const details = ecr.map(
    (i) => `${i.image} (${plural(i.pods, 'pod')}, e.g. ${i.example.namespace}/${i.example.name})`,
  );
  const pods = ecr.reduce((n, i) => n + i.pods, 0);
  if (ctx.profile.version && ctx.profile.version.minor >= 27) {
    return pass(
      ID,
      `${plural(pods, 'pod')} pull from ECR on Kubernetes ${ctx.profile.version.raw}, which has no in-tree credential provider: the kubelets already use a credential provider plugin`,
      { details },
    );
  }
  const configured = credentialProviderEvidence(ctx);
  if (configured.all) {
    return pass(
      ID,
      `${plural(pods, 'pod')} pull from ECR and every kubelet has --image-credential-provider-config`,
      { details },
    );
  }
  return warn(
    ID,
    `${plural(pods, 'pod')} pull ${plural(ecr.length, 'image')} from ECR; once kubelets run --cloud-provider=external they need the ecr-credential-provider plugin${configured.some ? ' (only some kubelets show it)' : ''}`,
    fixes(ctx),
    {
      details,
      resources: ecr.map((i) => ({ kind: 'Pod', name: i.example.name, namespace: i.example.namespace })),
    },
  );
}

function credentialProviderEvidence(ctx: CheckContext): { all: boolean; some: boolean } {
  const def = ctx.profile.definition;
  if (def?.distro === 'rke2') {
    const all = (['control-plane', 'etcd', 'worker'] as const).every((r) =>
      def.roles[r].kubeletArgs.some((a) => a.includes('image-credential-provider-config')),
    );
    if (all) return { all, some: true };
  }
  const nodes = ctx.profile.nodes;
  const withFlag = nodes.filter((n) =>
    (n.annotations['rke2.io/node-args'] ?? '').includes('image-credential-provider-config'),
  );
  return { all: nodes.length > 0 && withFlag.length === nodes.length, some: withFlag.length > 0 };
}

function fixes(ctx: CheckContext): Fix[] {
  const steps: Fix = {
    type: 'manual',
    description:
      'install the ecr-credential-provider binary (cloud-provider-aws releases) on every node and a CredentialProviderConfig that matches *.dkr.ecr.*.amazonaws.com; the node roles need the ECR actions (see iam-nodes)',
    steps: [
      'copy ecr-credential-provider to the bin dir on each node',
      'write a CredentialProviderConfig (apiVersion kubelet.config.k8s.io/v1) with matchImages ["*.dkr.ecr.*.amazonaws.com", "*.dkr.ecr.*.amazonaws.com.cn"]',
    ],
  };
  if (ctx.profile.distro === 'rke2') {
    return [
      {
        type: 'config',
        description: 'point the RKE2 kubelets at the credential provider (machineGlobalConfig or every role)',
        target: 'Rancher provisioning Cluster (spec.rkeConfig.machineGlobalConfig)',
        snippet:
          'kubelet-arg:\n  - image-credential-provider-config=/var/lib/rancher/credentialprovider/config.yaml\n  - image-credential-provider-bin-dir=/var/lib/rancher/credentialprovider/bin\n',
        commands: [],
      },
      steps,
    ];
  }
  return [
    {
      type: 'config',
      description: 'add the kubelet flags for the credential provider',
      target:
        ctx.profile.distro === 'rke'
          ? 'cluster.yml services.kubelet.extra_args'
          : 'kubelet flags on every node',
      snippet:
        ctx.profile.distro === 'rke'
          ? 'services:\n  kubelet:\n    extra_args:\n      image-credential-provider-config: /etc/kubernetes/credentialprovider/config.yaml\n      image-credential-provider-bin-dir: /opt/credentialprovider/bin\n'
          : '--image-credential-provider-config=/etc/kubernetes/credentialprovider/config.yaml\n--image-credential-provider-bin-dir=/opt/credentialprovider/bin\n',
      commands: [],
    },
    steps,
  ];
}
