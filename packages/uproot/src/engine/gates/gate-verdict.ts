/** One look at a gate: it holds, it does not hold yet (look again later), or it can never hold (stop now). */
export type GateVerdict =
  | { readonly type: 'pass'; readonly detail: string }
  | { readonly type: 'wait'; readonly reason: string; readonly fix: string }
  | { readonly type: 'fail'; readonly reason: string; readonly fix: string };

export const pass = (detail: string): GateVerdict => ({ type: 'pass', detail });
export const wait = (reason: string, fix: string): GateVerdict => ({ type: 'wait', reason, fix });
export const fail = (reason: string, fix: string): GateVerdict => ({ type: 'fail', reason, fix });

/** The first verdict that is not a pass, or a pass joining the details. */
export function firstProblem(verdicts: readonly GateVerdict[], passDetail: string): GateVerdict {
  return verdicts.find((v) => v.type !== 'pass') ?? pass(passDetail);
}

/** Lists at most `limit` names, then "and N more", so a 5,000-node reason stays one line. */
export function someNames(names: readonly string[], limit = 5): string {
  const shown = names.slice(0, limit).join(', ');
  return names.length > limit ? `${shown} and ${names.length - limit} more` : shown;
}
