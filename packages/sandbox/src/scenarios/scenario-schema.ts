import { z } from 'zod';
import { clusterSnapshotSchema } from 'uproot/core';
import { faultsSchema } from './fault-spec.js';

/**
 * A scenario: one kind of cluster on AWS, described as data, that the twin turns into a running sandbox.
 * Every object is strict, so a misspelt field is reported with its line instead of being ignored. The
 * format is documented field by field in docs/sandbox.md; keep the two in step.
 */

const k8sName = z
  .string()
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be lower-case letters, digits and dashes (an RFC 1123 label)');

const awsAction = z.string().regex(/^[a-z0-9-]+:[A-Za-z0-9*]+$/, 'must be an IAM action such as ec2:DescribeInstances');

/** How nodes are named: what the OS hostname and instance metadata report, relative to EC2's private DNS name. */
export const NAMING_MODES = ['ip-dns', 'short-hostname', 'custom-dhcp-domain', 'resource-name'] as const;
export type NamingMode = (typeof NAMING_MODES)[number];

const nodes = z
  .object({
    /**
     * Control-plane nodes (RKE2: control-plane + etcd roles; RKE: controlplane + etcd; kubeadm: control plane),
     * or control-plane-only nodes when `etcd` is set.
     */
    controlPlane: z.number().int().min(0).max(9).default(3),
    /**
     * RKE2 and RKE: dedicated etcd-only nodes, a separate pool as Rancher provisions it (the control-plane
     * nodes then carry no etcd role). 0 keeps etcd on the control-plane nodes.
     */
    etcd: z.number().int().min(0).max(9).default(0),
    /** Worker nodes. */
    workers: z.number().int().min(0).max(10_000).default(3),
  })
  .strict();

const naming = z
  .object({
    /**
     * `ip-dns`: hostname = EC2 private DNS name (`ip-10-0-1-23.ec2.internal`), the healthy case.
     * `short-hostname`: empty DHCP domain, the OS hostname is `ip-10-0-1-23` (IMDS still reports the full name).
     * `custom-dhcp-domain`: a DHCP options domain, hostname and IMDS `hostname`/`local-hostname` are
     * `ip-10-0-1-23.<dhcpDomain>` while EC2's private DNS name stays `….ec2.internal`.
     * `resource-name`: resource-based hostnames (`i-0abc….ec2.internal`) as with EC2's resource-name naming.
     */
    mode: z.enum(NAMING_MODES).default('ip-dns'),
    dhcpDomain: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must be a DNS domain such as corp.example.com')
      .default('corp.example.com'),
    /** RKE only: write `nodes[].hostname_override` (= the OS hostname) into cluster.yml, as custom clusters do. */
    rkeHostnameOverride: z.boolean().default(false),
  })
  .strict();

const aws = z
  .object({
    region: z
      .string()
      .regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be a region such as us-east-1')
      .default('us-east-1'),
    vpcCidr: z.string().default('10.0.0.0/16'),
    /** One subnet per zone; nodes are spread over them round-robin. */
    availabilityZones: z.array(z.string().min(1)).min(1).max(6).optional(),
    instanceType: z.string().default('m5.large'),
    workerInstanceType: z.string().optional(),
    /** `owned` or `shared`: the value of the `kubernetes.io/cluster/<clusterName>` tags. */
    clusterTagValue: z.enum(['owned', 'shared']).default('owned'),
    /** Check every AWS call against the caller's IAM policies (instance roles from IMDS). */
    enforceIam: z.boolean().default(true),
    /**
     * Every instance's metadata options (EC2 MetadataOptions). `httpTokens: required` refuses IMDSv1;
     * `httpPutResponseHopLimit: 1` keeps the token's answer from reaching pods on the pod network
     * (hostNetwork: false), so only host-network processes get tokens. The default is EC2's for an AMI
     * without ImdsSupport v2.0 (Ubuntu, RHEL): optional, 1.
     */
    instanceMetadata: z
      .object({
        httpTokens: z.enum(['optional', 'required']).default('optional'),
        httpPutResponseHopLimit: z.number().int().min(1).max(64).default(1),
      })
      .strict()
      .default({ httpTokens: 'optional', httpPutResponseHopLimit: 1 }),
  })
  .strict();

const iam = z
  .object({
    /** Actions left out of seed 004's control-plane policy (an IAM gap the CCM or in-tree KCM will hit). */
    controlPlaneMissingActions: z.array(awsAction).default([]),
    /** Actions left out of seed 004's etcd/worker policy. */
    workerMissingActions: z.array(awsAction).default([]),
  })
  .strict();

const rbac = z
  .object({
    /**
     * `granted`: the leader-locking roles already allow the migration lease (as after seed 003's patch).
     * `missing`: the bootstrap roles only (a fresh cluster): migration elections get 403 Forbidden.
     */
    migrationLease: z.enum(['granted', 'missing']).default('granted'),
  })
  .strict();

const loadBalancerService = z
  .object({
    name: k8sName,
    namespace: k8sName.default('default'),
    port: z.number().int().min(1).max(65535).default(80),
    targetPort: z.number().int().min(1).max(65535).default(8080),
    /** The node port (allocated when omitted); a replayed snapshot keeps the recorded one. */
    nodePort: z.number().int().min(30000).max(32767).optional(),
    /**
     * The Service's annotations. The twin still seeds a classic ELB for it, as the in-tree provider created it
     * before anyone annotated it: `service.beta.kubernetes.io/aws-load-balancer-type: nlb` here is the
     * annotation changed after the fact (kubernetes/cloud-provider-aws#1254).
     */
    annotations: z.record(z.string(), z.string()).default({}),
  })
  .strict();

const persistentVolume = z
  .object({
    name: k8sName,
    sizeGi: z.number().int().min(1).default(10),
    /** `in-tree`: `spec.awsElasticBlockStore` (needs the EBS CSI driver from 1.27); `csi`: `ebs.csi.aws.com`. */
    source: z.enum(['in-tree', 'csi']).default('in-tree'),
    storageClassName: z.string().default('gp2'),
    /** A Pod in `default` that mounts the volume through a bound PersistentVolumeClaim named after the volume. */
    pod: k8sName.optional(),
  })
  .strict();

const daemonSet = z
  .object({
    name: k8sName,
    namespace: k8sName.default('default'),
    /** e.g. an ECR image `123456789012.dkr.ecr.us-east-1.amazonaws.com/app:1.0` (needs a credential provider from 1.27). */
    image: z.string().min(1),
  })
  .strict();

const storageClass = z
  .object({
    name: k8sName,
    provisioner: z.string().default('kubernetes.io/aws-ebs'),
    isDefault: z.boolean().default(false),
  })
  .strict();

const workloads = z
  .object({
    loadBalancerServices: z.array(loadBalancerService).default([]),
    persistentVolumes: z.array(persistentVolume).default([]),
    storageClasses: z.array(storageClass).default([]),
    /** DaemonSets (tolerating everything) whose pods run on every node. */
    daemonSets: z.array(daemonSet).default([]),
    /** Run the EBS CSI driver (DaemonSet `ebs-csi-node` in kube-system). */
    ebsCsiDriver: z.boolean().default(false),
    /** CSIDriver objects (storage.k8s.io/v1) by name, besides the EBS driver's own (a replayed snapshot's). */
    csiDrivers: z.array(z.string().min(1)).default([]),
  })
  .strict();

const defects = z
  .object({
    /** Resources created without the `kubernetes.io/cluster/<id>` tag. */
    clusterTagMissingOn: z.array(z.enum(['instances', 'subnets', 'security-groups'])).default([]),
    /** A second cluster-tagged security group attached to every node ("Multiple tagged security groups"). */
    secondTaggedSecurityGroup: z.boolean().default(false),
    /**
     * A second `kubernetes.io/cluster/<id>` tag (value `owned`) on every instance, as an earlier cluster name
     * leaves behind: a manager that takes the cluster id from its instance's tags fails with "Found multiple
     * cluster tags with prefix kubernetes.io/cluster/" (pkg/providers/v1/tags.go findClusterIDs); one told the
     * id in its cloud config (`KubernetesClusterID`) does not look.
     */
    extraInstanceClusterTag: k8sName.optional(),
  })
  .strict();

const network = z
  .object({
    /**
     * kubeadm: the kube-controller-manager keeps --configure-cloud-routes at its default (true) next to
     * --allocate-node-cidrs=true, so the route controller writes pod-CIDR routes to the cluster's route
     * tables, and must move to the CCM with the migration. Default false (kubeadm's twin passes false).
     */
    cloudRoutes: z.boolean().default(false),
  })
  .strict();

/** What the person running uproot passes for this scenario (`uproot demo` passes it to migrate). */
const migration = z
  .object({
    /** `--target-version`: migrate and then upgrade one minor at a time to this release. */
    targetVersion: z.string().min(1).optional(),
  })
  .strict();

const rke = z
  .object({
    /**
     * `rke-cli`: a cluster.yml applied with `rke up` (written to the sandbox folder). `rancher`: Rancher
     * manages the cluster: its RKE options live in the management cluster's clusters.management.cattle.io
     * object (context `rancher`), and Rancher runs `rke up` when the object changes.
     */
    managedBy: z.enum(['rke-cli', 'rancher']).default('rke-cli'),
    /** With `rancher`: the Rancher server's version (settings.management.cattle.io/server-version). */
    rancherVersion: z
      .string()
      .regex(/^v\d+\.\d+\.\d+$/, 'must be a Rancher release such as v2.8.5')
      .default('v2.8.5'),
  })
  .strict();

const cloudConfig = z
  .object({
    /**
     * `[Global]` settings of the in-tree provider's cloud config, by their INI names (`KubernetesClusterID:
     * demo`). RKE twins write them to cluster.yml as `cloud_provider.awsCloudProvider.global` (RKE's yaml
     * keys) and RKE renders them to /etc/kubernetes/cloud-config; other distributions do not use it yet.
     */
    global: z.record(z.string(), z.string()).default({}),
  })
  .strict();

const ccmChart = z
  .object({
    /**
     * The aws-cloud-controller-manager chart's `valuesContent`, already installed before the migration (RKE2:
     * a HelmChart in `spec.rkeConfig.additionalManifest`; RKE and kubeadm: a HelmChart in the cluster).
     */
    values: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

const upgrade = z
  .object({
    /**
     * The version the cluster definition was moved to after the cluster was built, before uproot runs (RKE2:
     * the provisioning Cluster's spec.kubernetesVersion, rolled by Rancher; RKE: kubernetes_version in
     * cluster.yml, applied with rke up; kubeadm: the first control-plane node's manifests and kubelet, as
     * `kubeadm upgrade apply` and a package upgrade leave them). The twin replays it as it boots.
     */
    kubernetesVersion: z.string().min(1),
  })
  .strict();

const timings = z
  .object({
    /** Rancher/RKE: seconds between control-plane nodes while rolling a change out. */
    rolloutNodeDelaySeconds: z.number().min(0).default(10),
    /** How long a component takes to restart after its flags change. */
    componentRestartSeconds: z.number().min(0).default(2),
    /** Kubelet node-lease renewal period (upstream: 10 s). */
    nodeLeaseRenewSeconds: z.number().min(1).default(10),
    /** kubeadm: how often the kubelet looks at its static pod manifests (upstream: 20 s). */
    staticPodPollSeconds: z.number().min(1).default(5),
  })
  .strict();

export const scenarioSchema = z
  .object({
    name: k8sName,
    description: z.string().min(1),
    /** `none` is the bare API server and AWS account (no nodes, no managers). */
    distribution: z.enum(['none', 'rke2', 'rke', 'kubeadm']),
    /** RKE2 `v1.26.15+rke2r1`, RKE `v1.26.15-rancher1-1`, kubeadm `v1.26.15`; a bare `1.26` gets the distro's suffix. */
    kubernetesVersion: z.string().default('v1.26.15'),
    /** Rancher's cluster name and the `kubernetes.io/cluster/<id>` tag id. */
    clusterName: k8sName.default('sandbox'),
    /** Seeds ids, uids and jitter, so a scenario replays identically. */
    seed: z.number().int().min(0).default(1),
    /** `in-tree`: every component runs with `--cloud-provider=aws` (the state before the migration). */
    cloudProvider: z.enum(['in-tree', 'external']).default('in-tree'),
    nodes: nodes.default({ controlPlane: 3, etcd: 0, workers: 3 }),
    naming: naming.default({ mode: 'ip-dns', dhcpDomain: 'corp.example.com', rkeHostnameOverride: false }),
    aws: aws.default({
      region: 'us-east-1',
      vpcCidr: '10.0.0.0/16',
      instanceType: 'm5.large',
      clusterTagValue: 'owned',
      enforceIam: true,
      instanceMetadata: { httpTokens: 'optional', httpPutResponseHopLimit: 1 },
    }),
    iam: iam.default({ controlPlaneMissingActions: [], workerMissingActions: [] }),
    rbac: rbac.default({ migrationLease: 'granted' }),
    workloads: workloads.default({
      loadBalancerServices: [],
      persistentVolumes: [],
      storageClasses: [],
      daemonSets: [],
      ebsCsiDriver: false,
      csiDrivers: [],
    }),
    defects: defects.default({ clusterTagMissingOn: [], secondTaggedSecurityGroup: false }),
    ccm: ccmChart.optional(),
    upgrade: upgrade.optional(),
    cloudConfig: cloudConfig.optional(),
    /**
     * The user's rolling strategy. RKE2: merged over the provisioning Cluster's spec.rkeConfig.upgradeStrategy
     * (Rancher's names: controlPlaneConcurrency, workerConcurrency, controlPlaneDrainOptions,
     * workerDrainOptions); RKE: cluster.yml's upgrade_strategy (max_unavailable_controlplane,
     * max_unavailable_worker, drain, node_drain_input).
     */
    upgradeStrategy: z.record(z.string(), z.unknown()).optional(),
    network: network.default({ cloudRoutes: false }),
    rke: rke.default({ managedBy: 'rke-cli', rancherVersion: 'v2.8.5' }),
    migration: migration.default({}),
    /**
     * The record of a live cluster `uproot snapshot` wrote (issue 27, docs/snapshot.md). With it the twin's
     * machines, names, ids, tags, IAM and load balancers are the recorded ones, and the node pools, naming,
     * region, migration-lease grant and workloads are derived from it (scenarios/from-snapshot.ts).
     */
    snapshot: clusterSnapshotSchema.optional(),
    /** Faults a user turns on for the rehearsal (fault-spec.ts, docs/sandbox.md "Faults"). */
    faults: faultsSchema.optional(),
    timings: timings.default({
      rolloutNodeDelaySeconds: 10,
      componentRestartSeconds: 2,
      nodeLeaseRenewSeconds: 10,
      staticPodPollSeconds: 5,
    }),
  })
  .strict()
  .superRefine((scenario, ctx) => {
    // kubeadm stacks etcd on its control-plane nodes (an external etcd is not a Kubernetes node).
    if (scenario.nodes.etcd > 0 && scenario.distribution !== 'rke2' && scenario.distribution !== 'rke') {
      ctx.addIssue({
        code: 'custom',
        path: ['nodes', 'etcd'],
        message: `dedicated etcd nodes exist only in RKE2 and RKE clusters, not ${scenario.distribution}; use 0`,
      });
    }
    if (scenario.network.cloudRoutes && scenario.distribution !== 'kubeadm') {
      ctx.addIssue({
        code: 'custom',
        path: ['network', 'cloudRoutes'],
        message: `the twin models cloud routes for kubeadm only, not ${scenario.distribution}`,
      });
    }
    if (scenario.rke.managedBy === 'rancher' && scenario.distribution !== 'rke') {
      ctx.addIssue({
        code: 'custom',
        path: ['rke', 'managedBy'],
        message: `rke.managedBy applies to RKE clusters, not ${scenario.distribution}`,
      });
    }
    if (scenario.cloudConfig && scenario.distribution !== 'rke') {
      ctx.addIssue({
        code: 'custom',
        path: ['cloudConfig'],
        message: `the twin writes an in-tree cloud config only for RKE (cloud_provider.awsCloudProvider), not ${scenario.distribution}`,
      });
    }
  });

/** What a scenario file or a test writes (defaults optional). */
export type ScenarioInput = z.input<typeof scenarioSchema>;
/** A validated scenario with every default filled in. */
export type Scenario = z.output<typeof scenarioSchema>;
export type Distribution = Scenario['distribution'];
export type LoadBalancerServiceSpec = Scenario['workloads']['loadBalancerServices'][number];
export type PersistentVolumeSpec = Scenario['workloads']['persistentVolumes'][number];
