/**
 * in-tree-after-removal: a cluster already upgraded (or being upgraded) past 1.27 while its components still
 * ask for the in-tree AWS provider. Kubernetes 1.27 removed it (kubernetes/kubernetes#115838): the kubelet
 * exits ("failed to run Kubelet: unknown cloud provider \"aws\"", rancher/rke2#4183), every KCM that wins its
 * lease crashes, kube-apiserver 1.29-1.32 refuses the name and 1.33 the flag (kubernetes/kubernetes#130162),
 * and RKE refuses the cluster.yml. Leader migration cannot help any more: the in-tree side cannot run. The way
 * out is to go back to the version the nodes still run, then migrate as part of the upgrade.
 */
import { rke2ComponentProvider } from '../distros/rke2/index.js';
import { lastFlagValue } from '../model/flag-list.js';
import { apiserverStartFailure, kcmStartFailure, kubeletStartFailure } from '../kubernetes-version/index.js';
import { atLeast, type KubernetesVersion } from '../model/kubernetes-version.js';
import { fail, pass, skip, type CheckResult, type Fix, type ResourceRef } from './check-result.js';
import type { CheckContext } from './check-context.js';
import type { ClusterDefinition, Rke2Definition } from '../model/cluster-definition.js';
import { tryParse } from './facts/cluster-profile.js';
import { imageTag } from '../model/index.js';

const ID = 'in-tree-after-removal';

interface Finding {
  readonly detail: string;
  readonly resource: ResourceRef;
}

export function checkInTreeAfterRemoval(ctx: CheckContext): CheckResult {
  const pods = ctx.snapshot.kube.componentPods;
  const definition = ctx.profile.definition;
  if (pods.state === 'unavailable' && !definition) return skip(ID, pods.reason);
  const findings = [
    ...(pods.state === 'ok' ? podFindings(pods.value) : []),
    ...(definition ? definitionFindings(definition) : []),
  ];
  if (findings.length === 0) {
    return pass(
      ID,
      'no component runs, or is configured to run, the in-tree AWS provider on a version that removed it',
    );
  }
  const running = runningVersion(ctx);
  return fail(
    ID,
    `the in-tree AWS provider is asked for on Kubernetes 1.27 or later, which removed it (${findings.length === 1 ? '1 place' : `${findings.length} places`}, below): those components do not start, and their nodes stay NotReady or keep crashing`,
    fixes(definition, running),
    { details: findings.map((f) => f.detail), resources: findings.map((f) => f.resource) },
  );
}

/** Mirror pods of kube-apiserver and kube-controller-manager whose image version refuses their flags. */
function podFindings(
  pods: readonly {
    name: string;
    namespace: string;
    component: string;
    image?: string;
    args: readonly string[];
  }[],
): Finding[] {
  const out: Finding[] = [];
  for (const pod of pods) {
    const version = pod.image ? versionOfImage(pod.image) : undefined;
    if (!version) continue;
    const error =
      pod.component === 'kube-controller-manager'
        ? kcmStartFailure(version, pod.args)
        : pod.component === 'kube-apiserver'
          ? apiserverStartFailure(version, pod.args)?.error
          : undefined;
    if (!error) continue;
    const when = pod.component === 'kube-controller-manager' ? 'exits once it leads' : 'exits at start';
    out.push({
      detail: `pod ${pod.namespace}/${pod.name} (${version.raw}) ${when}: ${error}`,
      resource: { kind: 'Pod', name: pod.name, namespace: pod.namespace },
    });
  }
  return out;
}

function definitionFindings(definition: ClusterDefinition): Finding[] {
  const resource: ResourceRef = { kind: 'ClusterDefinition', name: definition.source };
  switch (definition.distro) {
    case 'rke2':
      return rke2Findings(definition, resource);
    case 'rke': {
      const version = definition.kubernetesVersion ? tryParse(definition.kubernetesVersion) : undefined;
      if (!version || definition.cloudProviderName !== 'aws' || !atLeast(version, 1, 27)) return [];
      // rancher/rke cluster/defaults.go (v1.4.15/v1.5.0 on).
      return [
        {
          detail: `${definition.source}: rke up refuses it: Cloud provider aws is invalid for [${definition.kubernetesVersion ?? ''}]`,
          resource,
        },
      ];
    }
    case 'kubeadm': {
      const version = definition.kcmImage ? versionOfImage(definition.kcmImage) : undefined;
      const error = version ? kcmStartFailure(version, definition.kcmArgs) : undefined;
      return error && version
        ? [{ detail: `${definition.source} (${version.raw}) exits once it leads: ${error}`, resource }]
        : [];
    }
  }
}

/** What RKE2 of the definition's version runs on each role's kubelet, KCM and apiserver. */
function rke2Findings(definition: Rke2Definition, resource: ResourceRef): Finding[] {
  const version = definition.kubernetesVersion ? tryParse(definition.kubernetesVersion) : undefined;
  if (!version || !atLeast(version, 1, 27)) return [];
  const out: Finding[] = [];
  for (const [role, config] of Object.entries(definition.roles)) {
    const name = config.cloudProviderName ?? definition.cloudProviderName ?? '';
    const implied = rke2ComponentProvider(name, version);
    const provider = (args: readonly string[]) => lastFlagValue(args, 'cloud-provider') ?? implied;
    const kubelet = kubeletStartFailure(version, [`--cloud-provider=${provider(config.kubeletArgs)}`]);
    if (kubelet) {
      out.push({
        detail: `${definition.source}: ${role} nodes on ${version.raw}: the kubelet exits (${kubelet.error}); RKE2 does not start and Rancher stops at the first node it upgrades (rancher/rke2#4183)`,
        resource,
      });
    }
    if (role !== 'control-plane') continue;
    const kcm = kcmStartFailure(version, [`--cloud-provider=${provider(config.kcmArgs)}`]);
    if (kcm && !kubelet) {
      out.push({
        detail: `${definition.source}: kube-controller-manager ${version.raw} exits once it leads: ${kcm}`,
        resource,
      });
    }
  }
  return out;
}

function versionOfImage(image: string): KubernetesVersion | undefined {
  const tag = imageTag(image);
  return tag === undefined ? undefined : tryParse(tag);
}

/** The version the nodes still run: the oldest kubelet (they are not upgraded past it yet). */
function runningVersion(ctx: CheckContext): string | undefined {
  const versions = ctx.profile.nodes
    .map((n) => ({ raw: n.kubeletVersion, v: tryParse(n.kubeletVersion) }))
    .filter((x): x is { raw: string; v: KubernetesVersion } => x.v !== undefined)
    .sort((a, b) => a.v.minor - b.v.minor || a.v.patch - b.v.patch);
  return versions[0]?.raw;
}

function fixes(definition: ClusterDefinition | undefined, running: string | undefined): Fix[] {
  const migrate: Fix = {
    type: 'commands',
    description:
      'then move to the external cloud provider as part of the upgrade, with leader migration, and let uproot do the version hop',
    commands: ['uproot preflight --target-version 1.27', 'uproot migrate --target-version 1.27'],
  };
  if (definition?.distro === 'rke2' && definition.name && definition.namespace) {
    const back = rke2Version(running) ?? '<the version the nodes run>';
    return [
      {
        type: 'config',
        description: `set the cluster back to ${back}, the version its nodes still run: Rancher reinstalls it on the node it could not upgrade (its kubelet never started, so nothing ran 1.27)`,
        target: `${definition.source} (spec.kubernetesVersion)`,
        snippet: `spec:\n  kubernetesVersion: ${back}\n`,
        commands: [
          `kubectl --context <rancher-context> -n ${definition.namespace} patch clusters.provisioning.cattle.io ${definition.name} --type merge -p '${JSON.stringify({ spec: { kubernetesVersion: back } })}'`,
        ],
      },
      migrate,
    ];
  }
  if (definition?.distro === 'rke') {
    return [
      {
        type: 'config',
        description: `keep kubernetes_version at ${running ? `${running} (what the nodes run)` : 'the running version'} until the migration to external-aws is done`,
        target: `${definition.source} (kubernetes_version)`,
        snippet: `kubernetes_version: ${running ? `${running}-rancher1-1` : '<running version>'}\n`,
        commands: [],
      },
      migrate,
    ];
  }
  return [
    {
      type: 'manual',
      description: `put the upgraded components back to ${running ?? 'the version the other nodes run'}, or switch them to --cloud-provider=external with a CCM already running`,
      steps: [
        'restore the previous image tags in /etc/kubernetes/manifests/kube-controller-manager.yaml and kube-apiserver.yaml on the upgraded control-plane nodes',
        'reinstall the previous kubelet package on upgraded nodes (kubeadm-flags.env still says --cloud-provider=aws)',
      ],
    },
    migrate,
  ];
}

/** An RKE2 version string for a kubelet version (`v1.26.15+rke2r1` stays as it is). */
function rke2Version(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  return raw.includes('+rke2') ? raw : `${raw}+rke2r1`;
}
