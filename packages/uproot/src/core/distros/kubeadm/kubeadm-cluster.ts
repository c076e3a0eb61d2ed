/**
 * Reading kubeadm-style static pod manifests: the kube-controller-manager manifest (required), and when
 * given (several files, or a manifests directory) kube-apiserver and an existing cloud-controller-manager.
 * Other static pods (etcd, kube-scheduler) are ignored.
 */
import { InputError } from '../../../errors/index.js';
import { parseKubernetesVersion, type KubernetesVersion } from '../../model/kubernetes-version.js';
import type { ClusterDefinition } from '../distro.js';
import { lastFlagValue } from '../../model/flag-list.js';
import { fieldPath, isRecord, type JsonRecord } from '../../model/json-value.js';
import {
  fieldError,
  parseYamlFile,
  withFileLocation,
  type ParsedYamlFile,
  type SourceFile,
} from '../shared/yaml-source.js';
import { imageTag } from '../../model/index.js';
import { containers, findContainer, flagsOf, isPod } from './static-pod.js';

export type ManifestRole = 'kube-controller-manager' | 'kube-apiserver' | 'cloud-controller-manager';

export interface StaticPodManifest {
  readonly role: ManifestRole;
  readonly file: SourceFile;
  readonly parsed: ParsedYamlFile;
  readonly docIndex: number;
  readonly pod: JsonRecord;
  /** Index of the component's container in spec.containers. */
  readonly containerIndex: number;
}

export interface KubeadmDefinition extends ClusterDefinition {
  readonly distro: 'kubeadm';
  readonly kcm: StaticPodManifest;
  readonly apiserver?: StaticPodManifest;
  readonly ccm?: StaticPodManifest;
}

/** Which component a static pod runs, if it is one uproot edits. */
export function manifestRole(value: unknown): ManifestRole | undefined {
  if (!isPod(value)) return undefined;
  for (const role of ['cloud-controller-manager', 'kube-controller-manager', 'kube-apiserver'] as const) {
    if (findContainer(value, role)) return role;
  }
  const name = isRecord(value.metadata) ? String(value.metadata.name ?? '') : '';
  if (/cloud-controller-manager/.test(name)) return 'cloud-controller-manager';
  return undefined;
}

export function isKcmManifest(value: unknown): boolean {
  return manifestRole(value) === 'kube-controller-manager';
}

function describeKind(value: unknown): string {
  if (!isRecord(value)) return value === null ? 'an empty document' : `a ${typeof value}`;
  return typeof value.kind === 'string' ? `a ${value.kind}` : 'a document without kind';
}

export function readKubeadmManifests(files: readonly SourceFile[]): KubeadmDefinition {
  const found: StaticPodManifest[] = [];
  const others: { file: string; what: string }[] = [];
  for (const file of files) {
    const parsed = parseYamlFile(file);
    parsed.values.forEach((value, docIndex) => {
      const role = manifestRole(value);
      if (!role) {
        if (!isPod(value)) others.push({ file: file.path, what: describeKind(value) });
        return;
      }
      const pod = value as JsonRecord;
      const container =
        findContainer(pod, role === 'cloud-controller-manager' ? 'cloud-controller-manager' : role) ??
        containers(pod)[0];
      found.push({
        role,
        file,
        parsed,
        docIndex,
        pod,
        containerIndex: Math.max(0, containers(pod).indexOf(container!)),
      });
    });
  }
  const kcms = found.filter((m) => m.role === 'kube-controller-manager');
  const kcm = kcms[0];
  if (!kcm) {
    const first = others[0];
    throw new InputError(
      'UP-PLAN-KUBEADM-NO-KCM',
      `no kube-controller-manager static pod manifest in ${files.map((f) => f.path).join(', ')}${first ? ` (found ${first.what} in ${first.file})` : ''}`,
      {
        location: { file: files[0]?.path ?? '', line: 1 },
        hint: 'give /etc/kubernetes/manifests/kube-controller-manager.yaml from a control-plane node (or the manifests directory)',
      },
    );
  }
  if (kcms.length > 1) {
    throw new InputError(
      'UP-PLAN-KUBEADM-MANY-KCM',
      `${kcms.length} kube-controller-manager manifests given`,
      {
        location: { file: kcms[1]!.file.path, line: 1 },
        hint: 'give the manifests of one control-plane node (uproot applies the changes to every control-plane node)',
      },
    );
  }
  const kubernetesVersion = kcmVersion(kcm);
  const flags = flagsOf(containers(kcm.pod)[kcm.containerIndex]!);
  return {
    distro: 'kubeadm',
    name: lastFlagValue(flags, 'cluster-name') ?? 'kubernetes',
    source: [...new Set(found.map((m) => m.file.path))].join(', '),
    kubernetesVersion,
    kcm,
    ...(found.find((m) => m.role === 'kube-apiserver')
      ? { apiserver: found.find((m) => m.role === 'kube-apiserver')! }
      : {}),
    ...(found.find((m) => m.role === 'cloud-controller-manager')
      ? { ccm: found.find((m) => m.role === 'cloud-controller-manager')! }
      : {}),
  };
}

/** The KCM's Kubernetes version, from its image tag. */
function kcmVersion(kcm: StaticPodManifest): KubernetesVersion {
  const container = containers(kcm.pod)[kcm.containerIndex]!;
  const path = ['spec', 'containers', kcm.containerIndex, 'image'];
  const image = container.image;
  const tag = typeof image === 'string' ? imageTag(image) : undefined;
  if (typeof image !== 'string' || tag === undefined) {
    throw fieldError(
      'UP-PLAN-KUBEADM-IMAGE',
      `${kcm.file.path}: ${fieldPath(path)} has no version tag`,
      kcm.parsed,
      kcm.docIndex,
      path,
      {
        value: image,
        hint: 'uproot reads the Kubernetes version from the image tag, e.g. registry.k8s.io/kube-controller-manager:v1.26.15',
      },
    );
  }
  return withFileLocation(kcm.parsed, kcm.docIndex, path, () => parseKubernetesVersion(tag, fieldPath(path)));
}
