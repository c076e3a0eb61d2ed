export {
  EXAMPLES,
  examplesDir,
  readClusterDefinitionFile,
  readClusterFiles,
  readExample,
  readRancherCluster,
  readRancherClusterSource,
} from './cluster-source.js';
