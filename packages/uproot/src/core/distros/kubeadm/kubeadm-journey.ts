/**
 * The kubeadm side of an upgrade: what a person does (kube-apiserver and kube-scheduler manifests, which
 * differ per node, and the kubelet, an OS package), and the hops of a journey past the migration, where uproot
 * writes kube-controller-manager.yaml and the CCM manifest itself, node by node, as in roll-control-plane.
 *
 * One manual change per step, first in the step: `--manual-done <step>` confirms every manual change of a
 * step, so a second one would never be shown. Its order is the one upstream's kubeadm upgrade follows:
 * kube-apiserver first on each control-plane node (nothing may be newer than it), then the kubelets; uproot's
 * kube-controller-manager and CCM writes come after (Kubernetes version-skew policy).
 */
import { parseKubernetesVersion, type KubernetesVersion } from '../../model/kubernetes-version.js';
import type { Change } from '../../model/plan-types.js';
import type { PlannedUpgrade } from '../distro.js';
import {
  APISERVER_FLAG_REASON,
  JOURNEY_SOURCE,
  apiserverDropsCloudFlags,
  upgradeStep,
} from '../shared/journey-steps.js';
import type { PlanAssembly } from '../shared/plan-assembly.js';
import { gates } from '../shared/plan-building.js';
import { ccmImage } from '../shared/plan-common.js';
import {
  APISERVER_MANIFEST_PATH,
  CCM_MANIFEST_PATH,
  KCM_MANIFEST_PATH,
  KUBEADM_FLAGS_PATH,
  SCHEDULER_MANIFEST_PATH,
} from './ccm-static-pod.js';
import type { KubeadmDefinition } from './kubeadm-cluster.js';
import { kubeadmApplyStep } from './kubeadm-steps.js';
import { advance, writeFile, type FileState } from './manifest-files.js';
import type { StepOptions } from '../distro.js';

/**
 * pkgs.k8s.io serves one repository per minor (https://pkgs.k8s.io/core:/stable:/v1.28/deb/), its packages
 * versioned `1.28.15-1.1`; `kubelet --version` prints `Kubernetes v1.28.15`.
 */
function kubeletRelease(version: KubernetesVersion): { version: string; package: string } {
  const plain = `${version.major}.${version.minor}.${version.patch}`;
  return { version: `v${plain}`, package: `${plain}-1.1` };
}

function kubeletPackage(version: KubernetesVersion): string {
  const { version: release, package: pkg } = kubeletRelease(version);
  return `install the kubelet package of ${release} (pkgs.k8s.io repository for v${version.major}.${version.minor}: apt-get install -y kubelet=${pkg}, or dnf install -y kubelet-${pkg}; kubelet --version then prints "Kubernetes ${release}")`;
}

export interface ControlPlaneUpgrade {
  readonly release: string;
  /** The migration's upgrade: kube-apiserver and every kubelet also move to --cloud-provider=external. */
  readonly toExternal: boolean;
  /** What uproot writes itself afterwards, for the last line. */
  readonly thenUproot: string;
}

/** The person's part of an upgrade on kubeadm: kube-apiserver and kube-scheduler, the kubelets, kubeadm-config. */
export function kubeadmUpgradeChange(upgrade: ControlPlaneUpgrade): Change {
  const version = parseKubernetesVersion(upgrade.release);
  const release = `v${version.major}.${version.minor}.${version.patch}`;
  const dropFlags = apiserverDropsCloudFlags(version);
  const apiserverFlags = upgrade.toExternal
    ? ` and --cloud-provider=external (${release} has no in-tree aws provider)`
    : dropFlags
      ? '; remove --cloud-provider and --cloud-config (kube-apiserver 1.33 removed them, kubernetes/kubernetes#130162)'
      : '';
  const kubelet = upgrade.toExternal
    ? `On every node (control plane and workers), set --cloud-provider=external for the kubelet (KUBELET_KUBEADM_ARGS in ${KUBEADM_FLAGS_PATH}), ${kubeletPackage(version)}, then: systemctl restart kubelet (a ${release} kubelet refuses --cloud-provider=aws, so both change in one restart; one node at a time, control plane first)`
    : `On every node, one at a time (control plane first, then workers; kubectl drain <node> --ignore-daemonsets first if its workloads need it), ${kubeletPackage(version)}, then: systemctl restart kubelet`;
  const configFields: { path: string; value?: string }[] = [
    { path: 'kubernetesVersion', value: release },
    ...(upgrade.toExternal
      ? ['controllerManager', 'apiServer'].map((c) => ({
          path: `${c}.extraArgs.cloud-provider`,
          value: 'external',
        }))
      : []),
    ...(dropFlags && !upgrade.toExternal
      ? [{ path: 'apiServer.extraArgs.cloud-provider' }, { path: 'apiServer.extraArgs.cloud-config' }]
      : []),
  ];
  const config = [
    `kubernetesVersion: ${release}`,
    ...(upgrade.toExternal
      ? ['controllerManager.extraArgs.cloud-provider and apiServer.extraArgs.cloud-provider to external']
      : []),
    ...(dropFlags && !upgrade.toExternal
      ? ['remove cloud-provider and cloud-config from apiServer.extraArgs']
      : []),
  ].join(', ');
  return {
    type: 'manual',
    description: `Upgrade kube-apiserver, kube-scheduler and the kubelets to ${release}${upgrade.toExternal ? ' with the external provider' : ''}`,
    instructions: [
      `On each control-plane node, one at a time, kube-apiserver first (kube-controller-manager, kube-scheduler and the CCM must never be newer than it):`,
      `  ${APISERVER_MANIFEST_PATH}: image registry.k8s.io/kube-apiserver:${release}${apiserverFlags}; the kubelet restarts it`,
      `  ${SCHEDULER_MANIFEST_PATH}: image registry.k8s.io/kube-scheduler:${release}`,
      kubelet,
      `kubectl -n kube-system edit configmap kubeadm-config: in ClusterConfiguration set ${config} (otherwise the next kubeadm upgrade writes the old settings back)`,
      `(kubeadm upgrade apply ${release} on the first control-plane node and kubeadm upgrade node on the others do the control-plane part from that ClusterConfiguration, and also upgrade kube-proxy and CoreDNS.)`,
      `uproot then writes ${upgrade.thenUproot} node by node.`,
    ].join('\n'),
    actions: [
      {
        type: 'edit-static-pod',
        path: APISERVER_MANIFEST_PATH,
        container: 'kube-apiserver',
        image: `registry.k8s.io/kube-apiserver:${release}`,
        ...(upgrade.toExternal ? { setFlags: { 'cloud-provider': 'external' } } : {}),
        ...(dropFlags && !upgrade.toExternal ? { removeFlags: ['cloud-provider', 'cloud-config'] } : {}),
      },
      {
        type: 'edit-static-pod',
        path: SCHEDULER_MANIFEST_PATH,
        container: 'kube-scheduler',
        image: `registry.k8s.io/kube-scheduler:${release}`,
      },
      {
        type: 'kubelet',
        flagsFile: KUBEADM_FLAGS_PATH,
        ...(upgrade.toExternal ? { setFlags: { 'cloud-provider': 'external' } } : {}),
        install: kubeletRelease(version),
      },
      { type: 'edit-kubeadm-config', fields: configFields },
    ],
  };
}

/** The manifests uproot writes on every control-plane node, as they stand between hops. */
export interface HopFiles {
  kcm: FileState;
  ccm: FileState;
}

/** One hop: the person's upgrade of kube-apiserver and the kubelets, then kube-controller-manager and the CCM. */
export function addKubeadmHop(
  plan: PlanAssembly,
  def: KubeadmDefinition,
  options: StepOptions,
  files: HopFiles,
  hop: PlannedUpgrade,
): HopFiles {
  const version = parseKubernetesVersion(hop.version);
  const kcm = advance(files.kcm, def.kcm, kubeadmApplyStep(hop.step, files.kcm.object, options));
  const ccm = advance(files.ccm, def.ccm, kubeadmApplyStep(hop.step, files.ccm.object, options));
  plan.addFileAfterStep(hop.step, 'kube-controller-manager.yaml', kcm.text);
  plan.addFileAfterStep(hop.step, 'cloud-controller-manager.yaml', ccm.text);
  if (def.apiserver) {
    // A reference only: each node's kube-apiserver.yaml is its own (--advertise-address); the person edits it.
    const apiserver = kubeadmApplyStep(hop.step, def.apiserver.pod, options);
    plan.addFileAfterStep(
      hop.step,
      'kube-apiserver.yaml',
      advance(
        { path: APISERVER_MANIFEST_PATH, object: def.apiserver.pod, text: def.apiserver.file.text },
        def.apiserver,
        apiserver,
      ).text,
      `kube-apiserver.yaml as given (a reference for the person's edit on each node)`,
    );
  }
  const dropFlags = apiserverDropsCloudFlags(version);
  plan.addStep(
    upgradeStep({
      version,
      description: `Upgrade the control plane and the kubelets to ${hop.version}, one node at a time: you move kube-apiserver, kube-scheduler and the kubelets; uproot then writes kube-controller-manager ${hop.version} and the CCM ${ccmImage(hop.ccmTag)} (the release of that minor) on each control-plane node.${dropFlags ? ` kube-apiserver loses --cloud-provider and --cloud-config in the same edit: ${APISERVER_FLAG_REASON}.` : ''} The next hop starts only when every kubelet, the API server and the control-plane pods run ${hop.version}.`,
      source: `${JOURNEY_SOURCE}; Kubernetes "Upgrading kubeadm clusters" (control plane, then kubelets)`,
      changes: [
        kubeadmUpgradeChange({
          release: hop.version,
          toExternal: false,
          thenUproot: `kube-controller-manager.yaml (${hop.version}) and the CCM (${hop.ccmTag})`,
        }),
        writeFile(KCM_MANIFEST_PATH, `kube-controller-manager ${hop.version}.`, files.kcm.text, kcm.text),
        writeFile(CCM_MANIFEST_PATH, `The CCM at ${hop.ccmTag}.`, files.ccm.text, ccm.text),
      ],
      gates: [
        gates.kubernetesVersion('kubeadm', hop.version),
        gates.controlPlaneFlags('external', false),
        gates.ccmStaticPods({ imageTag: hop.ccmTag }),
        gates.nodesInitialized(),
        gates.loadBalancersKept(),
      ],
    }),
  );
  return { kcm, ccm };
}
