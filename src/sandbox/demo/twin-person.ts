/**
 * The person at the demo's terminal, for the steps uproot leaves to one: on an RKE twin without
 * helm-controller, installing and later reconfiguring the CCM chart is `helm upgrade --install` with one of
 * the plan's values files. The demo does exactly that against the twin (the twin's rendering of the chart
 * with those values), then resumes with --manual-done, as a person would.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { type MigrationPlan, InternalError } from '../../index.js';
import { ManifestApplier } from '../twin/helm/manifest-applier.js';
import { CCM_CHART_NAME, renderCcmChart, type Twin } from '../twin/index.js';

const KUBEADM_FLAGS = 'kubeadm-flags.env';
const KUBELET_PROVIDER =
  /set --cloud-provider=(\w+) for the kubelet \(KUBELET_KUBEADM_ARGS in \/var\/lib\/kubelet\/kubeadm-flags\.env\)/;
const HELM_UPGRADE = /helm upgrade --install \S+ \S+ -n (\S+) --values (\S+)/;

/**
 * Does a manual step's instructions on the twin when they are a helm install of the CCM chart with one of
 * the plan's values files, or (kubeadm) switching every kubelet to the external provider; returns what was
 * done, or undefined when the demo has no hand for them.
 */
export function actAsPerson(twin: Twin, plan: MigrationPlan, instructions: string): string | undefined {
  const kubelets = KUBELET_PROVIDER.exec(instructions);
  if (twin.files.nodes && kubelets) return switchKubelets(twin.files.nodes, kubelets[1]!);
  const match = HELM_UPGRADE.exec(instructions);
  if (!match) return undefined;
  const [, namespace = 'kube-system', valuesPath = ''] = match;
  const artifact = plan.artifacts.find((a) => a.path === valuesPath);
  if (!artifact) return undefined;
  const values = parse(artifact.content) as Record<string, unknown>;
  const chart = renderCcmChart(values, { name: CCM_CHART_NAME, service: 'Helm' });
  const result = new ManifestApplier(twin.kube).apply(`helm:${CCM_CHART_NAME}`, chart.objects, namespace);
  if (result.errors.length > 0) {
    throw new InternalError(`installing the CCM chart on the twin failed: ${result.errors.join('; ')}`);
  }
  return `helm upgrade --install ${CCM_CHART_NAME} -n ${namespace} --values ${valuesPath} (${chart.objects.length} objects)`;
}

/**
 * kubeadm: KUBELET_KUBEADM_ARGS gets --cloud-provider=<provider> on every machine, and each control-plane
 * machine's kube-apiserver manifest the same flag, edited in place (its other flags are the machine's own).
 * The twin's kubelets notice the files as `systemctl restart kubelet` would; it keeps no kubeadm-config.
 */
function switchKubelets(nodesDir: string, provider: string): string {
  const flag = `--cloud-provider=${provider}`;
  let kubelets = 0;
  let apiservers = 0;
  for (const node of readdirSync(nodesDir).sort()) {
    const flags = join(nodesDir, node, 'var/lib/kubelet', KUBEADM_FLAGS);
    if (existsSync(flags)) {
      const before = readFileSync(flags, 'utf8');
      const after = /--cloud-provider=\S+/.test(before)
        ? before.replace(/--cloud-provider=[^\s"]+/, flag)
        : before.replace(/KUBELET_KUBEADM_ARGS="/, `KUBELET_KUBEADM_ARGS="${flag} `);
      if (after !== before) {
        writeFileSync(flags, after);
        kubelets++;
      }
    }
    const apiserver = join(nodesDir, node, 'etc/kubernetes/manifests/kube-apiserver.yaml');
    if (existsSync(apiserver)) {
      const before = readFileSync(apiserver, 'utf8');
      const after = before.replace(/--cloud-provider=[^\s"']+/, flag);
      if (after !== before) {
        writeFileSync(apiserver, after);
        apiservers++;
      }
    }
  }
  return `set ${flag} in /var/lib/kubelet/${KUBEADM_FLAGS} on ${kubelets} node(s) and in kube-apiserver.yaml on ${apiservers} control-plane node(s)`;
}
