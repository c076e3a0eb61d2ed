import { AwsCallError } from './aws-api.js';

/**
 * How an error reads in an event or log line: AWS errors as `Code: message` (the Go SDK's awserr text the
 * real managers print), everything else by its message.
 */
export function errorText(error: unknown): string {
  if (error instanceof AwsCallError) return error.text;
  if (error instanceof Error) return error.message;
  return String(error);
}
