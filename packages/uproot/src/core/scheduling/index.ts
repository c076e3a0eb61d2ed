export { formatTaint, formatToleration, isTolerated, toleratesTaint, tolerationFor } from './tolerations.js';
export { ROLE_TAINTS, type RoleTaintDistro } from './role-taints.js';
