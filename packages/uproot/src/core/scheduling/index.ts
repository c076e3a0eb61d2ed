export {
  formatTaint,
  formatToleration,
  isTolerated,
  toleratesTaint,
  tolerationFor,
  type Taint,
  type Toleration,
} from './tolerations.js';
export { ROLE_TAINTS, type RoleTaintDistro } from './role-taints.js';
