import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseKubernetesVersion } from 'uproot/core';

/**
 * A kubeadm machine's installed kubelet package, reduced to one file: `usr/bin/kubelet` in the machine's folder,
 * holding what `kubelet --version` prints (`Kubernetes v1.26.15`). Upgrading the package (apt-get install
 * kubelet=…; systemctl restart kubelet) is writing a new version there; the machine's kubelet picks it up at
 * its next look at its files. See docs/decisions/0012-twin-versions.md.
 */
export const INSTALLED_KUBELET = 'usr/bin/kubelet';

/** The file's text for a version (`v1.27.16` → `Kubernetes v1.27.16`). */
export function kubeletVersionText(version: string): string {
  const v = parseKubernetesVersion(version, 'kubelet version');
  return `Kubernetes v${v.major}.${v.minor}.${v.patch}\n`;
}

/** Installs a kubelet version on one machine of a kubeadm twin (`nodesDir` is `twin.files.nodes`). */
export function installKubelet(nodesDir: string, nodeName: string, version: string): void {
  const path = join(nodesDir, nodeName, INSTALLED_KUBELET);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, kubeletVersionText(version));
}

export type InstalledKubelet =
  { readonly ok: true; readonly version: string } | { readonly ok: false; readonly error: string };

/** Reads a machine's installed kubelet; a missing file means the version the machine was built with. */
export function readInstalledKubelet(nodeDir: string, builtWith: string): InstalledKubelet {
  const path = join(nodeDir, INSTALLED_KUBELET);
  if (!existsSync(path)) return { ok: true, version: builtWith };
  const text = readFileSync(path, 'utf8').trim();
  const m = /^Kubernetes (v\d+\.\d+\.\d+)$/.exec(text);
  if (!m) {
    return {
      ok: false,
      error: `/${INSTALLED_KUBELET}: expected "Kubernetes vX.Y.Z" (what kubelet --version prints), got ${JSON.stringify(text.slice(0, 80))}`,
    };
  }
  return { ok: true, version: m[1]! };
}
