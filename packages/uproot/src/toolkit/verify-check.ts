/** One check of `uproot verify` and how a gate verdict becomes one. */
import type { GateVerdict } from '../engine/gates/gate-verdict.js';

export type CheckStatus = 'pass' | 'fail' | 'skip';

export interface VerifyCheck {
  readonly id:
    | 'provider-ids'
    | 'nodes-initialized'
    | 'ccm-running'
    | 'kcm-external'
    | 'load-balancers-kept'
    | 'kubernetes-version'
    | 'no-ownership-overlap';
  readonly title: string;
  readonly status: CheckStatus;
  readonly detail: string;
  readonly fix?: string;
}

export function fromVerdict(id: VerifyCheck['id'], title: string, v: GateVerdict): VerifyCheck {
  return v.type === 'pass'
    ? { id, title, status: v.detail.startsWith('skipped') ? 'skip' : 'pass', detail: v.detail }
    : { id, title, status: 'fail', detail: v.reason, fix: v.fix };
}
