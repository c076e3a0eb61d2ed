/** Fleet logic as pure functions over plain data: which clusters, how fast, what happened, what to apply. */
export * from './fleet-cluster.js';
export * from './selection.js';
export * from './pacing.js';
export * from './fleet-status.js';
export * from './fleet-index.js';
export * from './job-manifests.js';
