/**
 * The floor of core: plain types and primitives every other folder of core stands on (the snapshot preflight
 * judges and the definitions it carries, the plan's types, JSON values, Kubernetes versions, command-line
 * flags, taints). It imports nothing else of core (eslint.config.js keeps it so); election's model is below it.
 */
export * from './readable.js';
export * from './snapshot.js';
export * from './cluster-definition.js';
export * from './iam-evaluation.js';
export * from './plan-types.js';
export * from './json-value.js';
export * from './kubernetes-version.js';
export * from './component-flags.js';
export * from './flag-list.js';
export * from './taint.js';
export * from './image-reference.js';
