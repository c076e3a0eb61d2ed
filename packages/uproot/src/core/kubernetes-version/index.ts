// What each Kubernetes version removed (the versions themselves are the model's: src/core/model).
export * from './removed-flags.js';
