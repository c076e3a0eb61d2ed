/**
 * Which distribution a cluster file describes, and the planner for each. `--distro` may confirm the
 * detection; contradicting it (e.g. --distro rke on a Rancher RKE2 Cluster) is an input error.
 */
import { InputError } from '../../errors/index.js';
import { DISTROS, type Distro } from '../model/plan-types.js';
import type { DistroPlanner } from './distro.js';
import { kubeadmPlanner } from './kubeadm/index.js';
import { rkePlanner } from './rke/index.js';
import { rke2Planner } from './rke2/index.js';
import { isRecord } from '../model/json-value.js';
import { parseYamlFile, type SourceFile } from './shared/yaml-source.js';

export const PLANNERS: Readonly<Record<Distro, DistroPlanner>> = {
  rke2: rke2Planner,
  rke: rkePlanner,
  kubeadm: kubeadmPlanner,
};

export const ACCEPTED_INPUTS =
  'a Rancher provisioning.cattle.io/v1 Cluster (RKE2), an RKE cluster.yml or Rancher cluster YAML with rancher_kubernetes_engine_config (RKE), or a kube-controller-manager static pod manifest (kubeadm)';

export function parseDistro(value: string): Distro {
  if ((DISTROS as readonly string[]).includes(value)) return value as Distro;
  throw new InputError('UP-PLAN-DISTRO', `unknown distribution "${value}"`, {
    location: { field: '--distro', value },
    hint: `use one of: ${DISTROS.join(', ')} (or leave --distro out to detect it)`,
  });
}

/** Detects the distribution from the files' documents (parsing them; syntax errors are located). */
export function detectDistro(files: readonly SourceFile[], requested?: Distro): Distro {
  const values = files.flatMap((file) => parseYamlFile(file).values);
  const detected = (['rke2', 'rke', 'kubeadm'] as const).find((d) => PLANNERS[d].detect(values));
  const first = files[0];
  if (!detected) {
    const sample = values.find((v) => v !== null);
    const what = isRecord(sample)
      ? typeof sample.kind === 'string'
        ? `a ${sample.kind}${typeof sample.apiVersion === 'string' ? ` (${sample.apiVersion})` : ''}`
        : 'a YAML map that is no known cluster definition'
      : sample === undefined
        ? 'no YAML documents'
        : `a YAML ${Array.isArray(sample) ? 'list' : typeof sample}`;
    throw new InputError(
      'UP-PLAN-UNKNOWN-INPUT',
      `${files.map((f) => f.path).join(', ')} holds ${what}, not a cluster definition`,
      {
        location: {
          file: first?.path ?? '',
          line: 1,
          ...(isRecord(sample) && typeof sample.kind === 'string'
            ? { field: 'kind', value: sample.kind }
            : {}),
        },
        hint: `give ${ACCEPTED_INPUTS}`,
      },
    );
  }
  if (requested && requested !== detected) {
    throw new InputError(
      'UP-PLAN-DISTRO-MISMATCH',
      `--distro ${requested} contradicts the file, which is ${describe(detected)}`,
      {
        location: { file: first?.path ?? '', line: 1, field: '--distro', value: requested },
        hint: `leave --distro out, or use --distro ${detected}`,
      },
    );
  }
  return detected;
}

function describe(distro: Distro): string {
  switch (distro) {
    case 'rke2':
      return 'a Rancher RKE2 Cluster';
    case 'rke':
      return 'an RKE cluster definition';
    case 'kubeadm':
      return 'a kube-controller-manager static pod manifest (kubeadm)';
  }
}
