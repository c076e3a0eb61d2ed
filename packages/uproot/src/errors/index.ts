export { ExitCode } from './exit-codes.js';
export {
  UprootError,
  InputError,
  AccessError,
  GateError,
  LockError,
  AbortError,
  InternalError,
  assertNever,
  formatError,
  type ErrorSource,
  type ErrorLocation,
  type UprootErrorOptions,
} from './uproot-error.js';
export { fieldPath, valueAt } from './field-path.js';
