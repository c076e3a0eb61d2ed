/**
 * What runs `rke up` for the cluster, and whether it knows `cloud_provider.name: external-aws`: RKE from
 * v1.4.15 on the 1.4 line and from v1.5.0 (rancher/rke k8s/node.go ExternalAWSCloudProviderName, first at
 * v1.4.15), which Rancher ships from v2.7.11 on the 2.7 line and from v2.8.0 (RKE and Rancher release notes).
 * An older RKE takes the name for an unknown provider and cannot switch the cluster.
 */
import { InputError } from '../../../errors/index.js';
import type { PlanFinding } from '../../model/plan-types.js';

export interface RkeTooling {
  /** `rke`: the RKE binary (`rke --version`); `rancher`: the Rancher server that runs RKE for the cluster. */
  readonly kind: 'rke' | 'rancher';
  readonly version: string;
  /** Where the version was read, for messages. */
  readonly source: string;
}

/** The first release of each line with external-aws, and the first line that has it from .0. */
const SINCE: Readonly<
  Record<RkeTooling['kind'], { readonly line: [number, number, number]; readonly from: [number, number] }>
> = {
  rke: { line: [1, 4, 15], from: [1, 5] },
  rancher: { line: [2, 7, 11], from: [2, 8] },
};

function parse(version: string): [number, number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/** Whether `tooling` knows external-aws; undefined when its version cannot be read (a dev build). */
export function knowsExternalAws(tooling: RkeTooling): boolean | undefined {
  const v = parse(tooling.version);
  if (!v) return undefined;
  const { line, from } = SINCE[tooling.kind];
  const [major, minor, patch] = v;
  if (major !== from[0]) return major > from[0];
  if (minor >= from[1]) return true;
  return minor === line[1] && patch >= line[2];
}

/** `rke version v1.4.15` (rke --version) → v1.4.15. */
export function rkeVersionFromOutput(stdout: string): string | undefined {
  return /\brke version (v?\d+\.\d+\.\d+\S*)/.exec(stdout)?.[1];
}

/** Refuses a plan whose switch the tooling cannot carry out; otherwise says what was checked. */
export function externalAwsToolingFinding(tooling: RkeTooling): PlanFinding {
  const known = knowsExternalAws(tooling);
  const name = tooling.kind === 'rke' ? 'RKE' : 'Rancher';
  const needed = tooling.kind === 'rke' ? 'v1.4.15 / v1.5.0' : 'v2.7.11 / v2.8.0';
  if (known === false) {
    throw new InputError(
      'UP-PLAN-RKE-EXTERNAL-AWS',
      `${name} ${tooling.version} (${tooling.source}) does not know cloud_provider external-aws, which exists from ${name} ${needed}: it cannot switch the cluster to the external provider`,
      {
        location: {
          field: tooling.kind === 'rke' ? '--rke-binary' : '--rancher-context',
          value: tooling.version,
        },
        hint:
          tooling.kind === 'rke'
            ? 'upgrade the rke binary to v1.4.15 or later (v1.5.x for Kubernetes 1.27+) and run uproot again'
            : 'upgrade Rancher to v2.7.11 or later (v2.8.x for Kubernetes 1.27+) and run uproot again',
      },
    );
  }
  return {
    severity: known ? 'info' : 'warning',
    code: 'rke-external-aws-version',
    message: known
      ? `${name} ${tooling.version} (${tooling.source}) knows cloud_provider external-aws (from ${name} ${needed}).`
      : `${name} reports version "${tooling.version}" (${tooling.source}), which uproot cannot compare: external-aws needs ${name} ${needed}.`,
  };
}
