/**
 * An error as AWS reports it on the wire: a code the SDK turns into the exception `name`, a message and an HTTP
 * status. Stores and handlers throw it; the router renders it in the calling service's error shape. In-process
 * callers of the state API see the same codes the SDK would.
 */
export class AwsApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly type: 'Sender' | 'Receiver';

  constructor(code: string, message: string, status = 400) {
    super(message);
    this.name = 'AwsApiError';
    this.code = code;
    this.status = status;
    this.type = status >= 500 ? 'Receiver' : 'Sender';
  }

  static is(value: unknown): value is AwsApiError {
    return value instanceof AwsApiError;
  }
}

export function invalidParameterValue(message: string): AwsApiError {
  return new AwsApiError('InvalidParameterValue', message);
}

export function missingParameter(name: string): AwsApiError {
  return new AwsApiError('MissingParameter', `The request must contain the parameter ${name}`);
}

export function invalidParameterCombination(message: string): AwsApiError {
  return new AwsApiError('InvalidParameterCombination', message);
}
