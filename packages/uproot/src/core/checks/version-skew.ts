/**
 * version-skew: the cluster is within the Kubernetes version-skew policy before the journey starts
 * (kubernetes/website content/en/releases/version-skew-policy.md): a kubelet must not be newer than
 * kube-apiserver and may be up to three minors older from kube-apiserver 1.28 (KEP-3935), two before; HA
 * kube-apiserver instances, kube-controller-manager and kube-scheduler run one minor (a half-done upgrade is
 * finished before a migration starts: the plan is made for one control-plane release). The migration's roll
 * moves every kubelet along, so the skew only has to hold at the start.
 */
import type { KubernetesVersion } from '../model/kubernetes-version.js';
import { fail, node, pass, skip, warn, type CheckResult, type Fix } from './check-result.js';
import { plural, type CheckContext } from './check-context.js';
import { oldest, tryParse } from './facts/cluster-profile.js';

const ID = 'version-skew';

/** How many minors a kubelet may lag kube-apiserver `apiserver` (n-3 from 1.28, KEP-3935; n-2 before). */
export function kubeletSkewAllowed(apiserver: Pick<KubernetesVersion, 'minor'>): number {
  return apiserver.minor >= 28 ? 3 : 2;
}

const minor = (v: KubernetesVersion): string => `${v.major}.${v.minor}`;

function newest(versions: readonly KubernetesVersion[]): KubernetesVersion | undefined {
  return [...versions].sort((a, b) => b.major - a.major || b.minor - a.minor || b.patch - a.patch)[0];
}

export function checkVersionSkew(ctx: CheckContext): CheckResult {
  const cp = ctx.profile.controlPlaneVersions;
  const apiservers = cp.filter((c) => c.component === 'kube-apiserver').map((c) => c.version);
  const oldestApi = oldest(apiservers);
  const newestApi = newest(apiservers);
  if (!oldestApi || !newestApi) {
    return skip(ID, 'no kube-apiserver version: no kube-apiserver pods and /version unreadable');
  }
  const details = cp.map((c) => `${c.component} ${c.version.raw}: ${c.source}`);

  const minors = [...new Set(cp.map((c) => minor(c.version)))];
  if (minors.length > 1) {
    const behind = cp.filter((c) => minor(c.version) !== minor(newest(cp.map((x) => x.version))!));
    return fail(
      ID,
      `the control plane runs ${minors.join(' and ')}: an upgrade is half done (${behind
        .slice(0, 5)
        .map((c) => `${c.component}${c.nodeName ? ` on ${c.nodeName}` : ''} ${c.version.raw}`)
        .join(', ')})`,
      [finishUpgradeFix(ctx, newest(cp.map((c) => c.version))!)],
      { details, resources: behind.flatMap((c) => (c.nodeName ? [node(c.nodeName)] : [])) },
    );
  }

  const allowed = kubeletSkewAllowed(newestApi);
  const kubelets = ctx.profile.nodes.flatMap((n) => {
    const v = tryParse(n.kubeletVersion);
    return v ? [{ name: n.name, version: v }] : [];
  });
  const tooNew = kubelets.filter(
    (k) => k.version.major !== oldestApi.major || k.version.minor > oldestApi.minor,
  );
  if (tooNew.length > 0) {
    return fail(
      ID,
      `${plural(tooNew.length, 'kubelet')} newer than kube-apiserver ${oldestApi.raw}, which the skew policy never allows: ${tooNew
        .slice(0, 5)
        .map((k) => `${k.name} ${k.version.raw}`)
        .join(', ')}`,
      [
        {
          type: 'manual',
          description: `finish upgrading the control plane to ${minor(newest(tooNew.map((k) => k.version))!)} before the migration (kube-apiserver first), or reinstall those nodes' kubelet at ${minor(oldestApi)}`,
          steps: ['then run uproot preflight again'],
        },
      ],
      { details, resources: tooNew.map((k) => node(k.name)) },
    );
  }
  const floor = newestApi.minor - allowed;
  const tooOld = kubelets.filter((k) => k.version.minor < floor);
  if (tooOld.length > 0) {
    return warn(
      ID,
      `${plural(tooOld.length, 'kubelet')} more than ${allowed} minors behind kube-apiserver ${newestApi.raw} (the most the skew policy allows${newestApi.minor >= 28 ? ' from 1.28' : ' before 1.28'}): ${tooOld
        .slice(0, 5)
        .map((k) => `${k.name} ${k.version.raw}`)
        .join(', ')}; each hop of the journey moves the control plane further ahead of them`,
      [upgradeKubeletsFix(ctx, `1.${floor}`)],
      { details, resources: tooOld.map((k) => node(k.name)) },
    );
  }
  return pass(
    ID,
    `the control plane runs ${minors[0]} throughout, and ${plural(kubelets.length, 'kubelet')} ${kubelets.length === 1 ? 'is' : 'are'} within ${allowed} minors of kube-apiserver ${newestApi.raw} and not newer`,
    { details },
  );
}

function finishUpgradeFix(ctx: CheckContext, to: KubernetesVersion): Fix {
  const steps =
    ctx.profile.distro === 'rke2'
      ? [
          'Rancher: wait until the cluster is Active again (Cluster Management shows the upgrade finished), or set spec.kubernetesVersion to one release',
        ]
      : ctx.profile.distro === 'rke'
        ? ['run rke up again with the cluster.yml whose kubernetes_version every node should run']
        : [
            'kubeadm: run kubeadm upgrade node on the control-plane nodes still on the older release (or set their manifests\u2019 images to the same release)',
          ];
  return {
    type: 'manual',
    description: `finish the upgrade in progress: bring every kube-apiserver, kube-controller-manager and kube-scheduler to ${minor(to)}`,
    steps: [...steps, 'then run uproot preflight again'],
  };
}

function upgradeKubeletsFix(ctx: CheckContext, atLeast: string): Fix {
  const how =
    ctx.profile.distro === 'kubeadm' || ctx.profile.distro === 'unknown'
      ? `install the kubelet package of ${atLeast} or later on each of them (pkgs.k8s.io repository for v${atLeast}), then systemctl restart kubelet`
      : ctx.profile.distro === 'rke'
        ? 'run rke up: it brings every node to the cluster\u2019s kubernetes_version'
        : 'let Rancher finish rolling those machines to the cluster\u2019s kubernetesVersion (or replace them)';
  return {
    type: 'manual',
    description: `upgrade the kubelets on those nodes to ${atLeast} or later before the migration`,
    steps: [how, 'then run uproot preflight again'],
  };
}
