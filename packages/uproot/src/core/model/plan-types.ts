/**
 * The migration plan: what `uproot plan` prints (-o json is this schema, versioned by `schemaVersion`), what
 * `uproot migrate` executes and journals. Plain data only; the zod schemas are the single source of truth and
 * the JSON Schema in docs/plan.schema.json is generated from them.
 *
 * Contract between the distro planners (src/core/distros) and the engine (src/engine): fields may be added;
 * renaming or removing one is a breaking change of the plan schema.
 */
import { z } from 'zod';

export const DISTROS = ['rke2', 'rke', 'kubeadm'] as const;
export const distroSchema = z.enum(DISTROS);
export type Distro = z.infer<typeof distroSchema>;

/** Stable step ids, in the order they run. Not every distro uses every step. */
export const STEP_IDS = [
  'grant-migration-lease',
  'enable-leader-migration',
  'cordon-control-plane',
  'install-ccm',
  'wait-ccm-rollout',
  'switch-to-external',
  'roll-control-plane',
  'upgrade-kubernetes',
  'disable-leader-migration',
  'verify-provider-ids',
] as const;
/**
 * The hops of an upgrade journey past the migration, one per Kubernetes minor: `upgrade-kubernetes-1.28`.
 * Their ids carry the minor because a journey has several of them and the journal keys steps by id.
 */
const minorStepIdSchema = <P extends string>(prefix: P) =>
  z.templateLiteral([prefix, z.number().int(), '.', z.number().int()]);
export const upgradeStepIdSchema = minorStepIdSchema('upgrade-kubernetes-');
export type UpgradeStepId = z.infer<typeof upgradeStepIdSchema>;
/**
 * RKE2 only: the CCM's move to a hop's minor, a step of its own after the hop's roll (`upgrade-ccm-1.28`).
 * Rancher delivers a chart change in the same Cluster edit at the first server while it restarts the others,
 * so the CCM DaemonSet's rollout and the node roll would take two candidates at once (decision 0035).
 */
export const ccmUpgradeStepIdSchema = minorStepIdSchema('upgrade-ccm-');
export type CcmUpgradeStepId = z.infer<typeof ccmUpgradeStepIdSchema>;
export const stepIdSchema = z.union([z.enum(STEP_IDS), upgradeStepIdSchema, ccmUpgradeStepIdSchema]);
export type StepId = z.infer<typeof stepIdSchema>;

export function upgradeStepId(version: { readonly major: number; readonly minor: number }): UpgradeStepId {
  return `upgrade-kubernetes-${version.major}.${version.minor}`;
}

export function isUpgradeStepId(id: string): id is UpgradeStepId {
  return upgradeStepIdSchema.safeParse(id).success;
}

export function ccmUpgradeStepId(version: {
  readonly major: number;
  readonly minor: number;
}): CcmUpgradeStepId {
  return `upgrade-ccm-${version.major}.${version.minor}`;
}

export function isCcmUpgradeStepId(id: string): id is CcmUpgradeStepId {
  return ccmUpgradeStepIdSchema.safeParse(id).success;
}

/** The Kubernetes hop whose CCM move an upgrade-ccm-1.N step is. */
export function hopStepOfCcmUpgrade(id: CcmUpgradeStepId): UpgradeStepId {
  return `upgrade-kubernetes-${id.slice('upgrade-ccm-'.length)}` as UpgradeStepId;
}

/** A step id as given on the command line (`--until`, `--manual-done`), checked. */
export function isStepId(id: string): id is StepId {
  return stepIdSchema.safeParse(id).success;
}

export const COMPONENTS = ['kube-controller-manager', 'cloud-controller-manager'] as const;
export const componentSchema = z.enum(COMPONENTS);
export type Component = z.infer<typeof componentSchema>;

/** Which API an object lives in: the downstream cluster, or Rancher's management cluster. */
export const apiTargetSchema = z.enum(['downstream', 'management']);
export type ApiTarget = z.infer<typeof apiTargetSchema>;

export const objectRefSchema = z.object({
  api: apiTargetSchema,
  apiVersion: z.string(),
  kind: z.string(),
  namespace: z.string().optional(),
  name: z.string(),
});
export type ObjectRef = z.infer<typeof objectRefSchema>;

const jsonPatchOpSchema = z.object({
  op: z.enum(['add', 'remove', 'replace', 'move', 'copy', 'test']),
  path: z.string(),
  value: z.unknown().optional(),
  from: z.string().optional(),
});
export type JsonPatchOp = z.infer<typeof jsonPatchOpSchema>;

/** Flags of a command line to change: set (name without dashes → value), and removed (names). */
const flagEdits = {
  setFlags: z.record(z.string(), z.string()).optional(),
  removeFlags: z.array(z.string()).optional(),
};

/**
 * What a manual change asks of a person, as data, in the order its instructions give: for whatever acts for
 * the person (the sandbox demo's stand-in, a team's own automation), so nothing has to parse the prose. The
 * instructions stay what a person reads; each action restates part of them and adds nothing.
 */
export const manualActionSchema = z.discriminatedUnion('type', [
  z.object({
    /** A static pod manifest on every control-plane node, one node at a time (the kubelet restarts it). */
    type: z.literal('edit-static-pod'),
    /** The manifest's path on the node (/etc/kubernetes/manifests/kube-apiserver.yaml). */
    path: z.string(),
    container: z.string(),
    image: z.string().optional(),
    ...flagEdits,
  }),
  z.object({
    /**
     * The kubelet on every node, one at a time, control-plane nodes first: its flags (KUBELET_KUBEADM_ARGS
     * in `flagsFile`) and its package, then one `systemctl restart kubelet`.
     */
    type: z.literal('kubelet'),
    flagsFile: z.string(),
    ...flagEdits,
    /** The release to install (`v1.28.15`) and its package version in the pkgs.k8s.io repository. */
    install: z.object({ version: z.string(), package: z.string() }).optional(),
  }),
  z.object({
    /** kubeadm's stored ClusterConfiguration (ConfigMap kube-system/kubeadm-config). */
    type: z.literal('edit-kubeadm-config'),
    /** Fields by dotted path (`apiServer.extraArgs.cloud-provider`); no value removes the field. */
    fields: z.array(z.object({ path: z.string(), value: z.string().optional() })),
  }),
  z.object({
    /** `helm upgrade --install RELEASE REPO/CHART -n NAMESPACE --values VALUES`. */
    type: z.literal('helm-upgrade'),
    release: z.string(),
    chart: z.string(),
    repo: z.string(),
    namespace: z.string(),
    /** The plan's artifact with the values (a path under --out). */
    values: z.string(),
  }),
]);
export type ManualAction = z.infer<typeof manualActionSchema>;

/**
 * One concrete change. `diff` is a unified diff of the human-readable form (YAML) before → after, for review.
 * The engine never replays `diff`: for objects it re-reads the live object and re-applies the step's
 * transformation (so concurrent edits survive); `patch` records what that transformation changed at plan time.
 */
export const changeSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('edit-cluster-definition'),
    description: z.string(),
    /** The Rancher provisioning Cluster (api: management), or an RKE cluster.yml / kubeadm manifest file. */
    target: z.union([objectRefSchema, z.object({ file: z.string() })]),
    patch: z.array(jsonPatchOpSchema),
    diff: z.string(),
  }),
  z.object({
    type: z.literal('write-file'),
    description: z.string(),
    /** Path on the node (e.g. /etc/kubernetes/manifests/kube-controller-manager.yaml). */
    path: z.string(),
    /** Node name or role the file belongs to; undefined = every control-plane node. */
    node: z.string().optional(),
    content: z.string(),
    diff: z.string(),
  }),
  z.object({
    type: z.literal('delete-file'),
    description: z.string(),
    path: z.string(),
    node: z.string().optional(),
  }),
  z.object({
    type: z.literal('patch-object'),
    description: z.string(),
    target: objectRefSchema,
    patchType: z.enum(['merge', 'strategic', 'json']),
    patch: z.unknown(),
    diff: z.string(),
  }),
  z.object({
    type: z.literal('apply-object'),
    description: z.string(),
    api: apiTargetSchema,
    object: z.record(z.string(), z.unknown()),
  }),
  z.object({
    type: z.literal('cordon-nodes'),
    description: z.string(),
    selector: z.string(),
  }),
  z.object({
    type: z.literal('uncordon-nodes'),
    description: z.string(),
    selector: z.string(),
  }),
  z.object({
    type: z.literal('manual'),
    description: z.string(),
    instructions: z.string(),
    /** The instructions as data, where uproot can give them (absent: the prose is all there is). */
    actions: z.array(manualActionSchema).optional(),
  }),
]);
export type Change = z.infer<typeof changeSchema>;
export type ChangeType = Change['type'];

/** A check that must hold before the next step starts. Each has a deadline. */
export const gateSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('daemonset-rolled-out'),
    namespace: z.string(),
    name: z.string(),
    timeoutSeconds: z.number(),
  }),
  z.object({ type: z.literal('nodes-cordoned'), selector: z.string(), timeoutSeconds: z.number() }),
  z.object({
    type: z.literal('migration-lease-held'),
    leaseName: z.string(),
    /** The component that must hold it; for wildcard configs, any manager of that component. */
    by: componentSchema,
    timeoutSeconds: z.number(),
  }),
  z.object({
    type: z.literal('control-plane-flags'),
    /** Expected effective settings on every control-plane node. */
    expect: z.object({
      cloudProvider: z.enum(['aws', 'external']),
      kcmLeaderMigration: z.boolean(),
    }),
    timeoutSeconds: z.number(),
  }),
  z.object({ type: z.literal('cluster-rolled-out'), timeoutSeconds: z.number() }),
  z.object({
    type: z.literal('kubernetes-version'),
    /**
     * The release every part of the cluster must run, in the forms the distribution shows it: each node's
     * status.nodeInfo.kubeletVersion, the API server's /version gitVersion, and the image tag of the
     * control-plane static pods (kube-apiserver, kube-controller-manager, kube-scheduler) on every
     * control-plane node; no imageTag where the control plane runs without pods (RKE).
     */
    expect: z.object({
      kubeletVersion: z.string(),
      gitVersion: z.string(),
      imageTag: z.string().optional(),
    }),
    timeoutSeconds: z.number(),
  }),
  z.object({
    type: z.literal('ccm-static-pods'),
    /**
     * kubeadm: the cloud-controller-manager static pod runs, Running and Ready, on every control-plane node as
     * its manifest now says (the image tag it pins, leader migration on or off; an absent field is not checked).
     */
    expect: z.object({ imageTag: z.string().optional(), leaderMigration: z.boolean().optional() }),
    timeoutSeconds: z.number(),
  }),
  z.object({ type: z.literal('nodes-initialized'), timeoutSeconds: z.number() }),
  z.object({ type: z.literal('load-balancers-kept'), timeoutSeconds: z.number() }),
  z.object({ type: z.literal('no-ownership-overlap') }),
  /**
   * uproot's promise over the step's window (from its start to the look): no controller ran in two managers
   * at once, and none was without a leader longer than its managers' LeaseDuration + RetryPeriod + 3 s.
   * Judged once, from the lease observations (core/ownership/promise-figures.ts).
   */
  z.object({ type: z.literal('promise-kept') }),
  z.object({
    type: z.literal('rbac-allows'),
    user: z.string(),
    verbs: z.array(z.string()),
    resource: z.string(),
    namespace: z.string(),
    resourceName: z.string(),
    timeoutSeconds: z.number(),
  }),
]);
export type Gate = z.infer<typeof gateSchema>;
export type GateType = Gate['type'];

export const planStepSchema = z.object({
  id: stepIdSchema,
  title: z.string(),
  /** Why this step exists and what it does, in a sentence or two. */
  description: z.string(),
  /** Where the step comes from (seed document and section), so a reviewer can check it. */
  source: z.string(),
  changes: z.array(changeSchema),
  gates: z.array(gateSchema),
  /** How to undo it; `changes` restore the previous state (the engine prefers its own backups when it has them). */
  undo: z.object({ description: z.string(), changes: z.array(changeSchema) }),
  /** Optional steps can be left out with a flag (e.g. disable-leader-migration). */
  optional: z.boolean().default(false),
});
export type PlanStep = z.infer<typeof planStepSchema>;

export const findingSchema = z.object({
  severity: z.enum(['info', 'warning']),
  code: z.string(),
  message: z.string(),
  field: z.string().optional(),
  hint: z.string().optional(),
});
export type PlanFinding = z.infer<typeof findingSchema>;

export const artifactSchema = z.object({
  /** Relative path under --out. */
  path: z.string(),
  description: z.string(),
  content: z.string(),
});
export type Artifact = z.infer<typeof artifactSchema>;

/**
 * The choices a planner made (from flags or from the cluster definition) that the step transformations need
 * again when the engine re-applies them to a live object: `stepOptionsFromPlan` in src/core/distros reads them.
 */
export const planDecisionsSchema = z.object({
  /** RKE2: keep `cloud-provider-name: aws` (node names from instance metadata) and switch with per-role overrides. */
  keepAwsNodeNaming: z.boolean().optional(),
  /** RKE: `cloud_provider.useInstanceMetadataHostname` after the switch. */
  useInstanceMetadataHostname: z.boolean().optional(),
  /** kubeadm: migrate the Node IPAM controller too (seed 003's special case). */
  withNodeIpam: z.boolean().optional(),
  /** How the CCM gets installed. */
  ccmInstall: z.enum(['additional-manifest', 'helm-controller', 'helm-cli', 'static-pod']).optional(),
  /** The Kubernetes version changes during the migration (kubernetes.target differs from current). */
  upgrade: z.boolean().optional(),
  /**
   * Flags the CCM takes over from kube-controller-manager (route: --allocate-node-cidrs, --cluster-cidr,
   * --configure-cloud-routes), so the step transformations render the same CCM when re-applied.
   */
  ccmArgs: z.array(z.string()).optional(),
  /** The in-tree cloud config carried into the CCM (ConfigMap kube-system/aws-cloud-config, --cloud-config). */
  cloudConfig: z.string().optional(),
});
export type PlanDecisions = z.infer<typeof planDecisionsSchema>;

export const migrationPlanSchema = z.object({
  schemaVersion: z.literal('uproot.dev/plan/v1'),
  distro: distroSchema,
  cluster: z.object({ name: z.string(), source: z.string() }),
  kubernetes: z.object({
    current: z.string(),
    /** Where the plan leaves the cluster. */
    target: z.string(),
    /**
     * Every step that changes the Kubernetes version, in order, with the release it moves the cluster to and
     * the CCM image tag that goes with it: the migration step (seed 002 folds the next minor into it), then
     * one upgrade-kubernetes-1.N step per later minor. Absent when the plan keeps the version. Kubernetes
     * does not downgrade, so a rollback never crosses a step listed here once it has started.
     */
    upgrades: z.array(z.object({ step: stepIdSchema, version: z.string(), ccmTag: z.string() })).optional(),
  }),
  /** CCM image pinned per phase: the CCM must not be newer than the API server. */
  ccm: z.object({
    image: z.string(),
    installTag: z.string(),
    targetTag: z.string(),
    /** The leader-migration configuration the managers use: default, or explicit (names of both eras). */
    leaderMigrationConfig: z.enum(['default', 'explicit']),
  }),
  outcome: z.discriminatedUnion('type', [
    z.object({ type: z.literal('migrate') }),
    z.object({ type: z.literal('nothing-to-do'), reason: z.string() }),
  ]),
  steps: z.array(planStepSchema),
  findings: z.array(findingSchema),
  artifacts: z.array(artifactSchema),
  decisions: planDecisionsSchema.optional(),
});
export type MigrationPlan = z.infer<typeof migrationPlanSchema>;
