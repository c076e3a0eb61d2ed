/**
 * The result of one preflight check and the fixes it proposes. The zod schemas are the single source of
 * truth: `-o json` is validated against them and docs/preflight.schema.json is generated from them.
 * Fields may be added; renaming or removing one is a breaking change of the report schema.
 */
import { z } from 'zod';

export const CHECK_IDS = [
  'kubernetes-version',
  'version-skew',
  'upgrade-path',
  'cloud-provider-mode',
  'leader-election',
  'migration-lease-rbac',
  'node-names',
  'provider-ids',
  'cluster-tags',
  'lb-subnets',
  'iam-control-plane',
  'iam-nodes',
  'control-plane-scheduling',
  'ccm-install',
  'ccm-release',
  'lb-type',
  'ebs-storage',
  'ecr-credentials',
  'node-name-settings',
  'in-tree-after-removal',
  'instance-metadata',
] as const;
export const checkIdSchema = z.enum(CHECK_IDS);
export type CheckId = z.infer<typeof checkIdSchema>;

export const CHECK_STATUSES = ['fail', 'warn', 'skip', 'pass'] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];

export const resourceRefSchema = z.object({
  kind: z.string().describe('Node, Instance, Subnet, SecurityGroup, Role, Service, PersistentVolume, ...'),
  name: z.string(),
  namespace: z.string().optional(),
});
export type ResourceRef = z.infer<typeof resourceRefSchema>;

export const tagChangeSchema = z.object({
  resourceIds: z.array(z.string()),
  key: z.string(),
  /** Absent for a removal of the key whatever its value. */
  value: z.string().optional(),
});
export type TagChange = z.infer<typeof tagChangeSchema>;

export const policyRuleSchema = z.object({
  apiGroups: z.array(z.string()),
  resources: z.array(z.string()),
  verbs: z.array(z.string()),
  resourceNames: z.array(z.string()).optional(),
});

export const subjectSchema = z.object({
  kind: z.string(),
  name: z.string(),
  namespace: z.string().optional(),
});

const iamStatementSchema = z.object({
  Sid: z.string().optional(),
  Effect: z.literal('Allow'),
  Action: z.array(z.string()),
  Resource: z.string(),
});

/**
 * A concrete fix. Every variant carries the commands a person can run (`commands`, possibly empty when the
 * fix is an edit) and the machine-readable change where it is mechanical (tags, RBAC rules, IAM statements).
 */
export const fixSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('commands'),
    description: z.string(),
    commands: z.array(z.string()),
  }),
  z.object({
    type: z.literal('ec2-tags'),
    description: z.string(),
    create: z.array(tagChangeSchema),
    remove: z.array(tagChangeSchema),
    commands: z.array(z.string()),
  }),
  z.object({
    type: z.literal('rbac-role'),
    description: z.string(),
    namespace: z.string(),
    name: z.string(),
    /** True when the Role does not exist yet and is created with `rules`. */
    create: z.boolean(),
    /** The complete rules list after the fix: the existing rules plus the new one (a merge patch replaces lists). */
    rules: z.array(policyRuleSchema),
    /** Subjects a RoleBinding of the same name must bind to the Role (empty when they are bound already). */
    bind: z.array(subjectSchema),
    commands: z.array(z.string()),
  }),
  z.object({
    type: z.literal('iam-policy'),
    description: z.string(),
    roleName: z.string(),
    policyName: z.string(),
    document: z.object({ Version: z.literal('2012-10-17'), Statement: z.array(iamStatementSchema) }),
    commands: z.array(z.string()),
  }),
  z.object({
    type: z.literal('config'),
    description: z.string(),
    /** What to edit: a file, a Rancher cluster, a Helm release. */
    target: z.string(),
    /** The settings to set, as YAML. */
    snippet: z.string(),
    commands: z.array(z.string()),
  }),
  z.object({
    type: z.literal('manual'),
    description: z.string(),
    steps: z.array(z.string()),
  }),
]);
export type Fix = z.infer<typeof fixSchema>;
export type FixType = Fix['type'];

const common = {
  id: checkIdSchema,
  title: z.string(),
  message: z.string(),
  resources: z.array(resourceRefSchema),
  /** Supporting lines: one per affected resource, capped, for the text report and for scripts. */
  details: z.array(z.string()),
};

export const checkResultSchema = z.discriminatedUnion('status', [
  z.object({ ...common, status: z.literal('pass') }),
  z.object({ ...common, status: z.literal('warn'), fixes: z.array(fixSchema).min(1) }),
  z.object({ ...common, status: z.literal('fail'), fixes: z.array(fixSchema).min(1) }),
  z.object({ ...common, status: z.literal('skip'), reason: z.string() }),
]);
export type CheckResult = z.infer<typeof checkResultSchema>;

export const CHECK_TITLES: Readonly<Record<CheckId, string>> = {
  'kubernetes-version': 'Kubernetes version and upgrade path',
  'version-skew': 'Version skew between kubelets and the control plane',
  'upgrade-path': 'Settings a later upgrade hop breaks',
  'cloud-provider-mode': 'Cloud provider the cluster runs now',
  'leader-election': 'kube-controller-manager leader election',
  'migration-lease-rbac': 'RBAC on the migration lease',
  'node-names': 'Node names resolve to EC2 instances',
  'provider-ids': 'Node providerIDs',
  'cluster-tags': 'Cluster tags on instances, subnets, security groups',
  'lb-subnets': 'Subnets for LoadBalancer Services',
  'iam-control-plane': 'IAM permissions of control-plane instances',
  'iam-nodes': 'IAM permissions of worker and etcd instances',
  'control-plane-scheduling': 'CCM pods can run on the control plane',
  'ccm-install': 'aws-cloud-controller-manager installation',
  'ccm-release': 'aws-cloud-controller-manager release has no known defect',
  'lb-type': 'LoadBalancer Services keep their kind of load balancer',
  'ebs-storage': 'EBS volumes and the EBS CSI driver',
  'ecr-credentials': 'ECR image pulls without the in-tree provider',
  'node-name-settings': 'Distribution node-name settings',
  'in-tree-after-removal': 'In-tree provider on a version that removed it',
  'instance-metadata': 'Instance metadata reachable by the CCM and the distribution',
};

interface ResultParts {
  readonly resources?: readonly ResourceRef[];
  readonly details?: readonly string[];
}

const MAX_DETAILS = 50;

function parts(p: ResultParts): { resources: ResourceRef[]; details: string[] } {
  const details = [...(p.details ?? [])];
  if (details.length > MAX_DETAILS) {
    const more = details.length - MAX_DETAILS;
    details.length = MAX_DETAILS;
    details.push(`… and ${more} more`);
  }
  return { resources: [...(p.resources ?? [])], details };
}

export function pass(id: CheckId, message: string, p: ResultParts = {}): CheckResult {
  return { id, title: CHECK_TITLES[id], status: 'pass', message, ...parts(p) };
}

export function warn(id: CheckId, message: string, fixes: readonly Fix[], p: ResultParts = {}): CheckResult {
  return {
    id,
    title: CHECK_TITLES[id],
    status: 'warn',
    message,
    fixes: nonEmpty(fixes, message),
    ...parts(p),
  };
}

export function fail(id: CheckId, message: string, fixes: readonly Fix[], p: ResultParts = {}): CheckResult {
  return {
    id,
    title: CHECK_TITLES[id],
    status: 'fail',
    message,
    fixes: nonEmpty(fixes, message),
    ...parts(p),
  };
}

export function skip(id: CheckId, reason: string, p: ResultParts = {}): CheckResult {
  return { id, title: CHECK_TITLES[id], status: 'skip', reason, message: `skipped: ${reason}`, ...parts(p) };
}

function nonEmpty(fixes: readonly Fix[], message: string): Fix[] {
  return fixes.length > 0 ? [...fixes] : [{ type: 'manual', description: message, steps: [message] }];
}

export function node(name: string): ResourceRef {
  return { kind: 'Node', name };
}
