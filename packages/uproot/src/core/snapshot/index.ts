/** `uproot snapshot`'s record of a cluster and its AWS account (issue 27): its format, and how it is built. */
export {
  SNAPSHOT_FORMAT_VERSION,
  clusterSnapshotSchema,
  snapshotNodeSchema,
  snapshotServiceSchema,
  snapshotInstanceSchema,
  type ClusterSnapshot,
  type ClusterSnapshotInput,
  type SnapshotAws,
  type SnapshotInstance,
  type SnapshotInstanceInput,
  type SnapshotNode,
  type SnapshotService,
} from './snapshot-schema.js';
export {
  recordSnapshot,
  replayDistribution,
  scenarioName,
  snapshotScenario,
  summarizeSnapshot,
  type RecordSnapshotInput,
  type SnapshotAwsExtras,
  type SnapshotScenario,
} from './record-snapshot.js';
