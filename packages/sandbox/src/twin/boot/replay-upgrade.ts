import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import type { Scenario } from '../../scenarios/index.js';
import type { TwinKube } from '../kube/twin-kube.js';
import { R } from '../kube/twin-kube.js';
import { installKubelet } from '../kubeadm/installed-kubelet.js';
import { MANIFESTS_DIR } from '../kubeadm/kubeadm-files.js';
import { distroVersion, type DistroVersion } from '../layout/versions.js';
import type { NodeAgent } from '../nodes/node-agent.js';
import { RANCHER_NAMESPACE } from '../rke2/provisioning-cluster.js';
import type { RkeUp } from '../rke/rke-up.js';

/**
 * A scenario's `upgrade`: the version change someone made before uproot runs, replayed the way they made it,
 * so the distribution reacts as it would (Rancher rolls it, `rke up` checks it, a kubeadm node restarts its
 * static pods and kubelet).
 */
export function replayUpgrade(input: {
  readonly scenario: Scenario;
  readonly version: DistroVersion;
  readonly managementKube: TwinKube | undefined;
  readonly rkeUp: RkeUp;
  readonly clusterYaml: { readonly text: string; readonly file: string } | undefined;
  readonly kubeadmMachines: readonly { readonly agent: NodeAgent; readonly nodeDir: string }[];
  readonly log: (line: string) => void;
}): void {
  const raw = input.scenario.upgrade?.kubernetesVersion;
  if (!raw) return;
  const { scenario, log } = input;
  const target = distroVersion(scenario.distribution, raw);
  switch (scenario.distribution) {
    case 'rke2':
      // Rancher's UI (or kubectl) edits the provisioning Cluster; the planner rolls it.
      input.managementKube?.mutate(
        R.provisioningClusters,
        RANCHER_NAMESPACE,
        scenario.clusterName,
        (draft) => {
          draft.spec = { ...(draft.spec as Record<string, unknown>), kubernetesVersion: target.configured };
          return draft;
        },
      );
      log(`upgrade: provisioning Cluster set to ${target.configured}`);
      return;
    case 'rke': {
      if (!input.clusterYaml) return;
      const doc = parseDocument(input.clusterYaml.text);
      doc.set('kubernetes_version', target.configured);
      const text = doc.toString();
      writeFileSync(input.clusterYaml.file, text);
      void input.rkeUp
        .up(text, input.clusterYaml.file)
        .then((r) => log(`upgrade: rke up ${r.ok ? 'succeeded' : `failed: ${r.reason}`}`));
      return;
    }
    case 'kubeadm': {
      // `kubeadm upgrade apply` on the first control-plane node, then its kubelet package.
      const first = input.kubeadmMachines.find((m) => m.agent.instance.role === 'control-plane');
      if (!first) return;
      for (const component of ['kube-apiserver', 'kube-controller-manager']) {
        const path = join(first.nodeDir, MANIFESTS_DIR, `${component}.yaml`);
        const text = readFileSync(path, 'utf8');
        writeFileSync(
          path,
          text.replace(`${component}:${input.version.imageTag}`, `${component}:${target.imageTag}`),
        );
      }
      const name = first.nodeDir.split('/').pop() ?? '';
      installKubelet(join(first.nodeDir, '..'), name, target.kubelet);
      log(`upgrade: ${name} upgraded to ${target.kubelet} (manifests and kubelet)`);
      return;
    }
    case 'none':
      return;
  }
}
