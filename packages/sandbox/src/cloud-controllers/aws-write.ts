import { guard, type ControllerContext } from './controller-context.js';

/**
 * A mutating AWS call: checked against the stop signal first, tracked on the clock, and recorded in the
 * ledger as `aws:<Action> <target>` once AWS accepted it.
 */
export async function awsWrite<T>(
  ctx: ControllerContext,
  signal: AbortSignal,
  label: string,
  call: () => Promise<T>,
): Promise<T> {
  guard(signal);
  const result = await ctx.cloud.api.send(call);
  ctx.record(`aws:${label}`);
  return result;
}
