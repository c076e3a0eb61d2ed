/**
 * cloud-provider-mode: what the cluster runs now. In-tree = every kube-controller-manager has
 * --cloud-provider=aws; external = --cloud-provider=external and a CCM runs; mixed = anything in between
 * (a rollout half done, or a CCM next to in-tree managers). A CCM beside an in-tree KCM is safe only
 * when both run leader migration: otherwise the service, route and node-lifecycle controllers run twice.
 */
import { fail, pass, skip, warn, type CheckResult, type Fix } from './check-result.js';
import { plural, type CheckContext } from './check-context.js';
import { flagEnabled, parseFlags } from '../model/component-flags.js';
import { findCcmDeployments, type CcmDeployment } from '../ccm/index.js';
import { kcmFromDefinition, type KcmView } from './facts/cluster-profile.js';

const ID = 'cloud-provider-mode';

type Mode = 'aws' | 'external' | 'none' | 'other';

function modeOf(value: string | undefined): Mode {
  if (value === 'aws') return 'aws';
  if (value === 'external') return 'external';
  if (value === undefined || value === '') return 'none';
  return 'other';
}

export function checkCloudProviderMode(ctx: CheckContext): CheckResult {
  const kcm = ctx.profile.kcm;
  if (kcm.state === 'unavailable') return skip(ID, kcm.reason);
  const seen = observe(ctx, kcm.value);
  const only = seen.distinct.size === 1 ? [...seen.distinct][0] : undefined;
  if (only === 'aws') return judgeInTree(ctx, seen);
  if (only === 'external') return judgeExternal(seen);
  if (only === 'none') return judgeNoProvider(seen);
  return judgeMixed(seen);
}

/** What the check sees: each KCM's --cloud-provider, the installed CCMs, and whether each runs leader migration. */
interface Observed {
  readonly modes: readonly { readonly view: KcmView; readonly mode: Mode }[];
  readonly ccms: readonly CcmDeployment[];
  readonly distinct: ReadonlySet<Mode>;
  readonly definitionDrift: string | undefined;
  readonly kcmMigrating: boolean;
  readonly ccmMigrating: boolean;
  readonly details: string[];
  readonly resources: { kind: string; name: string }[];
}

function observe(ctx: CheckContext, views: readonly KcmView[]): Observed {
  const modes = views.map((v) => ({ view: v, mode: modeOf(v.flags.get('cloud-provider')) }));
  const ccms = findCcmDeployments(ctx.snapshot.kube, ctx.profile.definition).filter(
    (c) => c.kind !== 'planned',
  );
  const details = [
    ...modes.map(
      (m) => `${m.view.source}: --cloud-provider=${m.view.flags.get('cloud-provider') ?? '(unset)'}`,
    ),
    ...ccms.map((c) => `${c.source}: ${c.image ?? 'image unknown'}`),
  ];
  const definitionDrift = driftFromDefinition(ctx);
  if (definitionDrift) details.push(definitionDrift);
  const distinct = new Set(modes.map((m) => m.mode));
  const kcmMigrating = modes.every((m) => flagEnabled(m.view.flags, 'enable-leader-migration', false));
  const ccmMigrating = ccms.every((c) => flagEnabled(parseFlags(c.args), 'enable-leader-migration', false));
  const resources = modes.map((m) => ({
    kind: 'KubeControllerManager',
    name: m.view.nodeName ?? m.view.source,
  }));
  return { modes, ccms, distinct, definitionDrift, kcmMigrating, ccmMigrating, details, resources };
}

/** Every KCM runs the in-tree provider: ready, a migration under way, or a CCM racing the KCMs. */
function judgeInTree(ctx: CheckContext, seen: Observed): CheckResult {
  const { modes, ccms, definitionDrift, kcmMigrating, ccmMigrating, details, resources } = seen;
  if (ccms.length === 0) {
    const msg = `in-tree: ${plural(modes.length, 'kube-controller-manager')} run --cloud-provider=aws and no CCM is installed; ready to migrate`;
    return definitionDrift
      ? warn(ID, `${msg}, but ${definitionDrift}`, [driftFix(ctx)], { details, resources })
      : pass(ID, msg, { details, resources });
  }
  if (kcmMigrating && ccmMigrating) {
    return warn(
      ID,
      'mixed: a migration is in progress (in-tree KCMs and a CCM, both with leader migration)',
      [
        {
          type: 'commands',
          description: 'finish (or roll back) the migration that is under way',
          commands: ['uproot status', 'uproot migrate --resume'],
        },
      ],
      { details, resources },
    );
  }
  return fail(
    ID,
    `mixed: a CCM runs next to in-tree kube-controller-managers without leader migration on ${kcmMigrating ? 'the CCM' : 'the KCMs'}: the cloud controllers run in both`,
    [
      {
        type: 'manual',
        description:
          'enable leader migration on both managers before the CCM runs, or remove the CCM until the migration',
        steps: [
          'add --enable-leader-migration to every kube-controller-manager (RKE2: kube-controller-manager-arg; RKE: services.kube-controller.extra_args)',
          'add --enable-leader-migration=true to the CCM chart args',
        ],
      },
    ],
    { details, resources },
  );
}

function judgeExternal({ ccms, details, resources }: Observed): CheckResult {
  if (ccms.length > 0) {
    return pass(
      ID,
      `external: the kube-controller-managers run --cloud-provider=external and a CCM is installed; nothing to migrate`,
      { details, resources },
    );
  }
  return fail(
    ID,
    'external without a cloud-controller-manager: new nodes stay uninitialized and LoadBalancer Services are not reconciled',
    [
      {
        type: 'commands',
        description: 'install the aws-cloud-controller-manager now',
        commands: ['uproot plan', 'uproot migrate'],
      },
    ],
    { details, resources },
  );
}

function judgeNoProvider({ details, resources }: Observed): CheckResult {
  return warn(
    ID,
    'no cloud provider: the kube-controller-managers run without --cloud-provider; there is nothing to migrate from',
    [
      {
        type: 'manual',
        description:
          'installing the CCM on a cluster without any cloud provider is a fresh setup, not a migration',
        steps: [
          'follow Rancher "Setting up the Amazon Cloud Provider" for an external provider instead of uproot migrate',
        ],
      },
    ],
    { details, resources },
  );
}

/** The KCMs disagree: a rolling migration (the in-tree ones with leader migration) or not. */
function judgeMixed({ modes, distinct, details, resources }: Observed): CheckResult {
  const migrating = modes
    .filter((m) => m.mode === 'aws')
    .every((m) => flagEnabled(m.view.flags, 'enable-leader-migration', false));
  const summary = (['aws', 'external', 'none', 'other'] as const)
    .filter((d) => distinct.has(d))
    .map((d) => `${modes.filter((m) => m.mode === d).length} ${d}`)
    .join(', ');
  const fix: Fix = {
    type: 'manual',
    description:
      'finish the control-plane rollout so every kube-controller-manager has the same --cloud-provider',
    steps: ['uproot status', 'if a migration is under way, resume it: uproot migrate --resume'],
  };
  return migrating
    ? warn(
        ID,
        `mixed: kube-controller-managers disagree (${summary}); a rolling migration is in progress`,
        [fix],
        { details, resources },
      )
    : fail(
        ID,
        `mixed: kube-controller-managers disagree (${summary}) and the in-tree ones lack --enable-leader-migration`,
        [fix],
        { details, resources },
      );
}

/** When the definition and the running KCMs disagree, a change is pending (or the file is stale). */
function driftFromDefinition(ctx: CheckContext): string | undefined {
  const definition = ctx.profile.definition;
  const kcm = ctx.profile.kcm;
  if (!definition || kcm.state !== 'ok' || kcm.value.every((v) => v.source === definition.source))
    return undefined;
  const wanted = kcmFromDefinition(definition).flags.get('cloud-provider');
  const running = kcm.value.find((v) => v.flags.get('cloud-provider') !== wanted);
  return running
    ? `${definition.source} sets --cloud-provider=${wanted ?? '(unset)'} while ${running.source} runs --cloud-provider=${running.flags.get('cloud-provider') ?? '(unset)'}`
    : undefined;
}

function driftFix(ctx: CheckContext): Fix {
  return {
    type: 'manual',
    description: 'reconcile the cluster definition with what runs before migrating',
    steps: [
      `make ${ctx.profile.definition?.source ?? 'the cluster definition'} match the running control plane, or let the distribution roll it out first`,
    ],
  };
}
