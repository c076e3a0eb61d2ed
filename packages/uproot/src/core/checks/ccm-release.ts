/**
 * ccm-release: the cloud-controller-manager releases the cluster runs or will run (installed, planned, or the
 * one uproot pins) against the table of known-bad releases (src/core/ccm/known-defects.ts):
 * - an installed CCM on a release with a defect every cluster hits (the ENI ordering that breaks kubectl
 *   logs/exec) fails, with the exact release of the same minor to move to;
 * - a CCM that runs, or that the migration would make run, the route controller on a release whose route
 *   controller cannot list routes (kubernetes/cloud-provider-aws#1351) fails: pod-CIDR routes would stop.
 * Where no release of the minor has the fix, the finding says so and what to do instead.
 */
import { stringify } from 'yaml';
import {
  CCM_IMAGE_REPOSITORY,
  FIRST_CCM_MINOR,
  NEWEST_CCM_MINOR,
  hasDefect,
  knownDefects,
  pinnedCcmRelease,
  type CcmRelease,
  type DefectFinding,
} from '../ccm/index.js';
import { withImageTag } from '../model/index.js';
import { fail, pass, warn, type CheckResult, type Fix } from './check-result.js';
import type { CheckContext } from './check-context.js';
import { CCM_NAMESPACE } from '../ccm/index.js';
import { ccmsInPlay, type CcmInPlay } from '../ccm/index.js';

const ID = 'ccm-release';

export function checkCcmRelease(ctx: CheckContext): CheckResult {
  const ccms = ccmsInPlay(ctx);
  if (ccms.length === 0) {
    return pass(ID, 'no cloud-controller-manager release to judge (no Kubernetes version known)');
  }
  const fails: string[] = [];
  const warns: string[] = [];
  const fixes: Fix[] = [];
  const details: string[] = [];
  for (const ccm of ccms) {
    const findings = knownDefects(ccm.release, { runsRoute: ccm.runsRoute });
    details.push(
      `${ccm.source}: ${ccm.release.raw}${ccm.runsRoute ? ' (runs the route controller)' : ''}${findings.length === 0 ? ', no known defect' : ''}`,
    );
    for (const f of findings) {
      const line = `${ccm.source}: ${ccm.release.raw} — ${f.defect.summary}: ${f.defect.effect} (${f.defect.sources
        .filter((s) => s.includes('#'))
        .join(', ')})`;
      // A defect without a fixed release to move to cannot be fixed by a tag: warn unless it stops routes.
      if (f.fix || f.defect.condition === 'route-controller') fails.push(line);
      else warns.push(`${line}; ${f.noFix}`);
      fixes.push(...fixesFor(ccm, f));
    }
  }
  if (fails.length > 0) return fail(ID, fails[0]!, fixes, { details: [...fails, ...warns, ...details] });
  if (warns.length > 0) return warn(ID, warns[0]!, fixes, { details: [...warns, ...details] });
  return pass(
    ID,
    `${ccms.map((c) => `${c.release.raw} (${c.source})`).join(', ')}: no known defect for this cluster`,
    { details },
  );
}

function fixesFor(ccm: CcmInPlay, f: DefectFinding): Fix[] {
  const d = ccm.deployment;
  if (f.fix) {
    const tag = f.fix.raw;
    if (!d) {
      return [
        {
          type: 'commands',
          description: `pin the CCM to ${tag} instead`,
          commands: [`uproot plan --ccm-image-tag ${tag}`, `uproot migrate --ccm-image-tag ${tag}`],
        },
      ];
    }
    const image = withImageTag(d.image ?? CCM_IMAGE_REPOSITORY, tag);
    if (d.kind === 'static-pod') {
      return [
        {
          type: 'config',
          description: `move ${d.source} to ${tag}, the newest ${f.fix.major}.${f.fix.minor} release without the defect`,
          target: `the static pod manifest of ${d.source} (kubeadm: /etc/kubernetes/manifests/cloud-controller-manager.yaml on each control-plane node)`,
          snippet: stringify({ spec: { containers: [{ name: 'cloud-controller-manager', image }] } }),
          commands: [],
        },
      ];
    }
    const fix: Fix = {
      type: 'config',
      description: `move ${d.source} to ${tag}, the newest ${f.fix.major}.${f.fix.minor} release without the defect`,
      target:
        d.kind === 'daemonset' ? `${d.source} (and the chart values it came from)` : `${d.source} values`,
      snippet: stringify({ image: { tag } }),
      commands:
        d.kind === 'daemonset'
          ? [`kubectl -n ${CCM_NAMESPACE} set image daemonset/${d.source.split('/').pop()} '*=${image}'`]
          : [],
    };
    return [fix];
  }
  if (f.defect.condition === 'route-controller') {
    const older = pinOfMinor(ccm.release.minor - 1, -1, (r) => !hasDefect(r, f.defect));
    return [
      {
        type: 'manual',
        description: `keep the route controller off releases that cannot list routes: ${f.noFix ?? ''}`,
        steps: [
          ...(older
            ? [
                `stop the journey at Kubernetes 1.${older.minor} (--target-version 1.${older.minor}: CCM ${older.raw} runs the route controller) until a 1.${ccm.release.minor} release with the fix is tagged, then pass it with --ccm-image-tag`,
              ]
            : []),
          'or stop relying on VPC routes for pod traffic (an overlay or the AWS VPC CNI) and set --configure-cloud-routes=false on kube-controller-manager and the CCM',
        ],
      },
    ];
  }
  const newer = pinOfMinor(ccm.release.minor + 1, +1, (r) => !hasDefect(r, f.defect));
  return [
    {
      type: 'manual',
      description: `no 1.${ccm.release.minor} release fixes it${newer ? `: migrate at Kubernetes 1.${newer.minor} or later, whose pinned CCM (${newer.raw}) has the fix` : ''}`,
      steps: [
        ...(newer
          ? [
              `upgrade the cluster to 1.${newer.minor} with its in-tree provider first (one minor at a time), then run uproot preflight again`,
            ]
          : []),
        'or, if the instances have a single network interface each and never get more (no AWS VPC CNI, no secondary ENIs), migrate as planned',
      ],
    },
  ];
}

/** The pin of the nearest minor from `minor` (stepping by `step`) whose pinned release satisfies `ok`. */
function pinOfMinor(minor: number, step: 1 | -1, ok: (r: CcmRelease) => boolean): CcmRelease | undefined {
  for (let m = minor; m >= FIRST_CCM_MINOR && m <= NEWEST_CCM_MINOR; m += step) {
    const pin = pinnedCcmRelease({ major: 1, minor: m, patch: 0, raw: `1.${m}` });
    if (ok(pin)) return pin;
  }
  return undefined;
}
