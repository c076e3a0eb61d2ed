/**
 * ebs-storage: volumes on the in-tree EBS plugin (PersistentVolumes with spec.awsElasticBlockStore,
 * StorageClasses with provisioner kubernetes.io/aws-ebs) are served through CSI migration (on by default
 * since 1.23, GA 1.25) and only work with the EBS CSI driver installed; the in-tree plugin is removed in
 * 1.27, and in-tree volumes with an external CCM do not work at all (CAPA docs). Rancher's advice to run
 * CSIMigrationAWS=false keeps volumes on the in-tree plugin, which the external provider cannot serve.
 */
import { fail, pass, skip, warn, type CheckResult, type Fix, type ResourceRef } from './check-result.js';
import { plural, type CheckContext } from './check-context.js';
import { keyValueList } from '../model/component-flags.js';
import type { PersistentVolumeFacts } from '../model/snapshot.js';

const ID = 'ebs-storage';
export const EBS_CSI_DRIVER = 'ebs.csi.aws.com';
const IN_TREE_PROVISIONER = 'kubernetes.io/aws-ebs';

export function checkEbsStorage(ctx: CheckContext): CheckResult {
  const { persistentVolumes: pvs, storageClasses: scs, csiDrivers, daemonSets } = ctx.snapshot.kube;
  if (pvs.state === 'unavailable') return skip(ID, pvs.reason);
  if (scs.state === 'unavailable') return skip(ID, scs.reason);
  const inTreePvs = pvs.value.filter((p) => p.plugin === 'in-tree');
  const inTreeScs = scs.value.filter((s) => s.provisioner === IN_TREE_PROVISIONER);
  if (inTreePvs.length === 0 && inTreeScs.length === 0) {
    return pass(ID, 'no PersistentVolume or StorageClass uses the in-tree EBS plugin');
  }
  const resources: ResourceRef[] = [
    ...inTreePvs.map((p) => ({ kind: 'PersistentVolume', name: p.name })),
    ...inTreeScs.map((s) => ({ kind: 'StorageClass', name: s.name })),
  ];
  const details = [
    ...inTreePvs.map((p) => `PersistentVolume ${p.name}: awsElasticBlockStore ${p.volumeID ?? ''}`.trim()),
    ...inTreeScs.map(
      (s) => `StorageClass ${s.name}${s.isDefault ? ' (default)' : ''}: provisioner ${IN_TREE_PROVISIONER}`,
    ),
  ];
  const usage = [
    inTreePvs.length > 0 ? plural(inTreePvs.length, 'PersistentVolume') : undefined,
    inTreeScs.length > 0 ? plural(inTreeScs.length, 'StorageClass', 'StorageClasses') : undefined,
  ]
    .filter(Boolean)
    .join(' and ');
  const driverKnown = csiDrivers.state === 'ok' || daemonSets.state === 'ok';
  const hasDriver =
    (csiDrivers.state === 'ok' && csiDrivers.value.includes(EBS_CSI_DRIVER)) ||
    (daemonSets.state === 'ok' &&
      daemonSets.value.some(
        (d) => d.name === 'ebs-csi-node' || d.containers.some((c) => c.image.includes('aws-ebs-csi-driver')),
      ));
  if (!driverKnown) {
    return skip(
      ID,
      `${usage} use the in-tree EBS plugin, and the CSI driver could not be looked up: ${csiDrivers.state === 'unavailable' ? csiDrivers.reason : ''}`,
    );
  }
  const migrationOff = csiMigrationDisabled(ctx);
  if (!hasDriver) {
    return fail(
      ID,
      `${usage} use the in-tree EBS plugin and the EBS CSI driver (${EBS_CSI_DRIVER}) is not installed: volumes stop attaching once the in-tree provider is gone`,
      installFixes(inTreeScs.map((s) => s.name)),
      { resources, details },
    );
  }
  if (migrationOff.length > 0) {
    return warn(
      ID,
      `the EBS CSI driver is installed but CSIMigrationAWS=false keeps ${usage} on the in-tree plugin`,
      [
        {
          type: 'manual',
          description:
            'remove CSIMigrationAWS=false from --feature-gates on the kubelets, KCM, API server and scheduler before switching to the external provider',
          steps: [
            ...migrationOff.map(
              (where) => `${where.split(':')[0]}: drop CSIMigrationAWS=false from --feature-gates`,
            ),
            'RKE2: remove it from kube-controller-manager-arg, kube-apiserver-arg, kube-scheduler-arg and kubelet-arg in the Cluster (machineGlobalConfig / machineSelectorConfig); RKE: from services.*.extra_args.feature-gates in cluster.yml, then rke up',
          ],
        },
      ],
      { resources, details: [...details, ...migrationOff] },
    );
  }
  if (inTreePvs.length > 0) {
    return warn(
      ID,
      `${plural(inTreePvs.length, 'PersistentVolume')} stay in-tree-shaped (spec.awsElasticBlockStore) after the switch: CSI migration serves them through the EBS CSI driver, but they ignore VolumeAttributesClass and some backup tools skip them`,
      [rewriteAsCsiFix(inTreePvs)],
      { resources, details },
    );
  }
  return pass(
    ID,
    `${usage} use the in-tree EBS plugin; CSI migration serves them through the installed EBS CSI driver`,
    { resources, details },
  );
}

/**
 * Rewriting an in-tree PV as a CSI PV by hand: the volume source of a PV cannot be changed in place
 * (ValidatePersistentVolumeUpdate: "spec.persistentvolumesource is immutable after creation"), and a bound PV
 * cannot be deleted (pv-protection), so claim and volume are recreated around the retained EBS volume, with
 * the fields csi-translation-lib maps (kubernetes/kubernetes staging/src/k8s.io/csi-translation-lib/plugins/
 * aws_ebs.go TranslateInTreePVToCSI). uproot does not automate it: docs/decisions/0016-intree-pvs-stay-manual.md.
 */
function rewriteAsCsiFix(pvs: readonly PersistentVolumeFacts[]): Fix {
  const pv = pvs[0]!;
  const claim = pv.claim ?? '<namespace>/<claim>';
  const [ns, pvc] = claim.split('/') as [string, string];
  const volume = pv.volumeID?.split('/').pop() ?? '<vol-id>';
  return {
    type: 'manual',
    description: `optional, after the migration and with downtime for the workload: rewrite ${pvs.length === 1 ? `PersistentVolume ${pv.name}` : `the ${pvs.length} in-tree PersistentVolumes`} as CSI volumes (driver ${EBS_CSI_DRIVER}) keeping the EBS volume; shown for ${pv.name}, repeat per volume. Not needed for the volumes to keep working (CSI migration serves them); uproot leaves it manual (docs/decisions/0016-intree-pvs-stay-manual.md)`,
    steps: [
      `kubectl get pv ${pv.name} -o yaml > ${pv.name}.yaml; kubectl -n ${ns} get pvc ${pvc} -o yaml > ${pvc}.yaml   (backups; keep them)`,
      `kubectl patch pv ${pv.name} -p '{"spec":{"persistentVolumeReclaimPolicy":"Retain"}}', then check \`kubectl get pv ${pv.name} -o jsonpath={.spec.persistentVolumeReclaimPolicy}\` prints Retain: with Delete, deleting the claim deletes the EBS volume`,
      `scale every workload that mounts ${claim} to zero (StatefulSets, Deployments, CronJobs) and wait until \`kubectl get volumeattachments\` no longer lists ${pv.name}`,
      `kubectl -n ${ns} delete pvc ${pvc}; kubectl delete pv ${pv.name}   (the PV is Released first; the EBS volume stays)`,
      `edit ${pv.name}.yaml as TranslateInTreePVToCSI does: replace spec.awsElasticBlockStore with spec.csi {driver: ${EBS_CSI_DRIVER}, volumeHandle: ${volume} (the id without aws://<zone>/), fsType and readOnly as they were, volumeAttributes: {partition: "<partition, 0 when unset>"}}; in spec.nodeAffinity rename the zone key (topology.kubernetes.io/zone or failure-domain.beta.kubernetes.io/zone) to topology.ebs.csi.aws.com/zone; keep capacity, accessModes, volumeMode, storageClassName and mountOptions; set spec.claimRef to {namespace: ${ns}, name: ${pvc}} only; drop the pv.kubernetes.io/migrated-to and pv.kubernetes.io/provisioned-by annotations, metadata.uid, resourceVersion, creationTimestamp and status; kubectl create -f ${pv.name}.yaml`,
      `edit ${pvc}.yaml: keep spec (volumeName: ${pv.name}), drop the volume.beta.kubernetes.io/storage-provisioner and volume.kubernetes.io/storage-provisioner and pv.kubernetes.io/migrated-to annotations, metadata.uid, resourceVersion and status; kubectl create -f ${pvc}.yaml and wait for \`kubectl -n ${ns} get pvc ${pvc}\` to show Bound`,
      `scale the workloads back up; restore the reclaim policy if it was Delete: kubectl patch pv ${pv.name} -p '{"spec":{"persistentVolumeReclaimPolicy":"Delete"}}'`,
    ],
  };
}

function csiMigrationDisabled(ctx: CheckContext): string[] {
  const out: string[] = [];
  if (ctx.profile.kcm.state === 'ok') {
    for (const v of ctx.profile.kcm.value) {
      if (keyValueList(v.flags.get('feature-gates')).get('CSIMigrationAWS') === 'false')
        out.push(`${v.source}: --feature-gates CSIMigrationAWS=false`);
    }
  }
  return out;
}

function installFixes(storageClasses: readonly string[]): Fix[] {
  return [
    {
      type: 'commands',
      description:
        'install the EBS CSI driver (the node roles, or a dedicated role, need the EBS CSI IAM policy)',
      commands: [
        'helm repo add aws-ebs-csi-driver https://kubernetes-sigs.github.io/aws-ebs-csi-driver',
        'helm upgrade --install aws-ebs-csi-driver aws-ebs-csi-driver/aws-ebs-csi-driver -n kube-system',
        `kubectl get csidriver ${EBS_CSI_DRIVER}`,
      ],
    },
    ...(storageClasses.length > 0
      ? [
          {
            type: 'manual' as const,
            description: `create StorageClasses with provisioner ${EBS_CSI_DRIVER} for new volumes (existing in-tree PVs keep working through CSI migration)`,
            steps: storageClasses.map(
              (s) => `replace StorageClass ${s} with one using provisioner ${EBS_CSI_DRIVER}`,
            ),
          },
        ]
      : []),
  ];
}
