import { afterEach, describe, expect, it } from 'vitest';
import { preflight } from '../../../packages/uproot/src/toolkit/preflight.js';
import { CHECK_IDS } from '../../../packages/uproot/src/core/checks/index.js';
import { startPreflightSandbox, type PreflightSandbox } from './sandbox-cluster.js';

let sandbox: PreflightSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe('preflight against the sandbox', () => {
  it('passes every check on a healthy RKE2 cluster', async () => {
    sandbox = await startPreflightSandbox();
    const { report } = await preflight({
      kubeconfig: sandbox.kubeconfig,
      env: sandbox.env,
      aws: { maxAttempts: 1 },
    });
    const statuses = Object.fromEntries(
      report.checks.map((c) => [c.id, c.status === 'pass' ? 'pass' : `${c.status}: ${c.message}`]),
    );
    expect(statuses).toEqual(Object.fromEntries(CHECK_IDS.map((id) => [id, 'pass'])));
  });
});
