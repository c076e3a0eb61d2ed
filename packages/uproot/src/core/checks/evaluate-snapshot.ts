/**
 * Adds the IAM evaluation to a snapshot: the async step between reading and checking (the simulator is
 * async; the checks stay synchronous and pure).
 */
import { evaluateIam } from '../iam/index.js';
import type { PreflightSnapshot } from '../model/snapshot.js';

export async function withIamEvaluation(snapshot: PreflightSnapshot): Promise<PreflightSnapshot> {
  const aws = snapshot.aws;
  if (aws.state !== 'ok') return snapshot;
  if (aws.value.iam.state !== 'ok')
    return { ...snapshot, iam: { state: 'unavailable', reason: aws.value.iam.reason } };
  return {
    ...snapshot,
    iam: { state: 'ok', value: await evaluateIam(aws.value.iam.value, aws.value.accountId) },
  };
}
