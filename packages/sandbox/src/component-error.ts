import { ExitCode, UprootError } from 'uproot';

/**
 * A failure inside a simulated component (a controller manager's controller, a node's metadata client, the
 * helm-controller), carrying the upstream component's own message where it has one: the simulated process
 * logs it, exits or retries as the real one does.
 */
export class ComponentError extends UprootError {
  constructor(message: string, options: { readonly cause?: unknown } = {}) {
    super('UP-SANDBOX-COMPONENT', message, {
      source: 'environment',
      exitCode: ExitCode.failed,
      ...(options.cause !== undefined ? { cause: options.cause } : {}),
    });
    this.name = 'ComponentError';
  }
}
