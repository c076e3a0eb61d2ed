/**
 * Which aws-cloud-controller-manager releases this cluster runs or will run: each installed or planned CCM
 * (by its image tag), and, when none is, the release uproot pins for the version the migration ends at.
 * Checks that depend on the CCM's release (known defects, IAM actions) judge these.
 */
import {
  flagEnabled,
  imageTag,
  parseFlags,
  type ClusterDefinition,
  type Flags,
  type KubeSnapshot,
  type KubernetesVersion,
  type Readable,
} from '../model/index.js';
import { ccmTagRelease, pinnedCcmRelease } from './ccm-image.js';
import type { CcmRelease } from './ccm-releases.js';
import { findCcmDeployments, type CcmDeployment } from './installed-chart.js';

/**
 * What the CCMs in play are read from: the snapshot, the cluster definition, the versions and the
 * kube-controller-managers' flags. Plain data; a preflight check's context (src/core/checks) is one.
 */
export interface CcmCluster {
  readonly snapshot: { readonly kube: KubeSnapshot };
  readonly profile: {
    readonly definition?: ClusterDefinition;
    readonly version?: KubernetesVersion;
    readonly targetVersion?: KubernetesVersion;
    readonly kcm: Readable<readonly { readonly flags: Flags }[]>;
  };
}

export interface CcmInPlay {
  readonly release: CcmRelease;
  /** `DaemonSet kube-system/aws-cloud-controller-manager`, or `the release uproot pins for 1.27`. */
  readonly source: string;
  /** The installed or planned deployment; undefined for the pin. */
  readonly deployment?: CcmDeployment;
  /** Whether this CCM runs (or will run) the route controller: --allocate-node-cidrs and --configure-cloud-routes. */
  readonly runsRoute: boolean;
}

export function ccmsInPlay(ctx: CcmCluster): CcmInPlay[] {
  const out: CcmInPlay[] = [];
  for (const d of findCcmDeployments(ctx.snapshot.kube, ctx.profile.definition)) {
    const tag = d.image ? imageTag(d.image) : undefined;
    const release = tag ? ccmTagRelease(tag) : undefined;
    if (!release) continue;
    const flags = parseFlags(d.args);
    out.push({
      release,
      source: d.source,
      deployment: d,
      // cloud-provider's startRouteController: both flags, --configure-cloud-routes defaulting to true.
      runsRoute:
        flagEnabled(flags, 'allocate-node-cidrs', false) &&
        flagEnabled(flags, 'configure-cloud-routes', true),
    });
  }
  if (out.length > 0) return out;
  const version = ctx.profile.targetVersion ?? ctx.profile.version;
  if (!version) return out;
  let release: CcmRelease;
  try {
    release = pinnedCcmRelease(version);
  } catch {
    return out; // too old for leader migration: kubernetes-version says so
  }
  return [
    {
      release,
      source: `the release uproot pins for Kubernetes ${version.major}.${version.minor}`,
      runsRoute: clusterUsesCloudRoutes(ctx),
    },
  ];
}

/**
 * The cluster relies on cloud routes: its kube-controller-managers allocate pod CIDRs and configure cloud
 * routes, so the route controller (in-tree now) must run in the CCM after the migration.
 */
export function clusterUsesCloudRoutes(ctx: CcmCluster): boolean {
  return (
    ctx.profile.kcm.state === 'ok' &&
    ctx.profile.kcm.value.some(
      (v) =>
        flagEnabled(v.flags, 'allocate-node-cidrs', false) &&
        flagEnabled(v.flags, 'configure-cloud-routes', true),
    )
  );
}
