export * from './kubernetes-version.js';
export * from './removed-flags.js';
