// Versions are election's (src/election/model): a manager's version picks its controller names and default.
export {
  atLeast,
  compareVersions,
  minorString,
  nextMinor,
  parseKubernetesVersion,
  type KubernetesVersion,
} from '../../election/model/index.js';
export * from './removed-flags.js';
