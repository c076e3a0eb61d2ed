// Versions are election's (src/election/model, below core): a manager's version picks its controller names and
// default. This is core's one door to them.
export {
  atLeast,
  compareVersions,
  minorString,
  nextMinor,
  parseKubernetesVersion,
  type KubernetesVersion,
} from '../../election/model/index.js';
