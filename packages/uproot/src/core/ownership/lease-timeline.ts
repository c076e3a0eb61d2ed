import type { KubernetesVersion } from '../model/kubernetes-version.js';
import {
  controllerName,
  controllersOf,
  filterController,
  MIGRATION_LEASE_NAME,
  type LeaderMigrationConfiguration,
  type LogicalController,
  type ManagerComponent,
} from '../leader-migration/index.js';
import type { LeaseObservation } from '../../election/model/index.js';
import type { TimeSpan } from './intervals.js';
import { ownershipReport, type OwnershipInterval, type OwnershipReport } from './ownership-report.js';

/** Who held a lease, as an outside observer can tell: from when the holder was seen until it changed or expired. */
export interface HolderSpan extends TimeSpan {
  readonly holder: string;
  /** How the span ended: another holder or a deleted lease was seen, or no renewal was seen for the duration. */
  readonly end: 'changed' | 'expired' | 'open';
}

/** How a manager was configured, as far as ownership goes. */
export interface ManagerProfile {
  readonly version: KubernetesVersion;
  /** The leader-migration configuration in effect; undefined when migration is off. */
  readonly migration?: LeaderMigrationConfiguration;
  /** KCM only: whether it runs the in-tree cloud controllers (false with --cloud-provider=external). */
  readonly cloudControllers: boolean;
}

export interface TimelineInput {
  readonly observations: readonly LeaseObservation[];
  /** Lease names; defaults kube-controller-manager, cloud-controller-manager, cloud-provider-extraction-migration. */
  readonly leases?: { readonly kcm?: string; readonly ccm?: string; readonly migration?: string };
  /** The configuration of each manager; `identityProfiles` overrides it for single processes. */
  readonly profiles: Readonly<Record<ManagerComponent, ManagerProfile>>;
  readonly identityProfiles?: Readonly<Record<string, ManagerProfile>>;
  readonly window: TimeSpan;
  /** Default: route, service, cloud-node-lifecycle, nodeipam, cloud-node. */
  readonly controllers?: readonly LogicalController[];
}

export interface InferredTimeline extends OwnershipReport {
  readonly leases: Readonly<Record<'kcm' | 'ccm' | 'migration', readonly HolderSpan[]>>;
}

/** The logical controllers the inference follows by default. */
export const INFERRED_CONTROLLERS: readonly LogicalController[] = [
  'route',
  'service',
  'cloud-node-lifecycle',
  'nodeipam',
  'cloud-node',
];
const ALL = INFERRED_CONTROLLERS;
const CLOUD_PROVIDER_CONTROLLERS = new Set<LogicalController>(['route', 'service', 'cloud-node-lifecycle']);

/**
 * Who held `name` over time. A holder counts from the observation that first showed it; each observation
 * showing a changed record (new resourceVersion) renews it for the record's leaseDurationSeconds, judged on
 * the observer's clock as client-go judges expiry, never on the holder's renewTime. No renewal seen for the
 * duration ends the span at the expiry: nobody holds it from then on.
 */
export function leaseHolderTimeline(
  observations: readonly LeaseObservation[],
  name: string,
  until: number,
): HolderSpan[] {
  const spans: HolderSpan[] = [];
  let current: { holder: string; from: number; renewedAt: number; durationMs: number } | undefined;
  let lastKey: string | undefined;
  const close = (at: number, end: HolderSpan['end']): void => {
    if (!current) return;
    const expiry = current.renewedAt + current.durationMs;
    const to = Math.min(at, expiry);
    if (to > current.from)
      spans.push({ holder: current.holder, from: current.from, to, end: expiry < at ? 'expired' : end });
    current = undefined;
  };
  for (const o of [...observations].filter((x) => x.name === name).sort((a, b) => a.time - b.time)) {
    if (o.time > until) break;
    const key = o.present
      ? (o.resourceVersion ?? `${o.holderIdentity}|${o.renewTime}|${o.leaseDurationSeconds}`)
      : '';
    if (key === lastKey) continue;
    lastKey = key;
    const holder = o.present ? o.holderIdentity : '';
    if (current && current.holder === holder && current.renewedAt + current.durationMs > o.time) {
      current.renewedAt = o.time;
      current.durationMs = o.leaseDurationSeconds * 1000;
      continue;
    }
    close(o.time, 'changed');
    if (holder !== '')
      current = { holder, from: o.time, renewedAt: o.time, durationMs: o.leaseDurationSeconds * 1000 };
  }
  if (current) {
    const expiry = current.renewedAt + current.durationMs;
    if (expiry < until) close(until, 'expired');
    else if (until > current.from)
      spans.push({ holder: current.holder, from: current.from, to: until, end: 'open' });
  }
  return spans;
}

/**
 * Infers which manager process ran each controller, from lease holders alone (what `uproot status` can see
 * on a real cluster). Non-migrated controllers run in the holder of their manager's main lease; migrated ones
 * in the holder of the migration lease, whose manager is the one whose main lease it also holds (a manager
 * only campaigns for the migration lease while it holds its main lease).
 */
export function inferOwnership(input: TimelineInput): InferredTimeline {
  const names = {
    kcm: input.leases?.kcm ?? 'kube-controller-manager',
    ccm: input.leases?.ccm ?? 'cloud-controller-manager',
    migration: input.leases?.migration ?? MIGRATION_LEASE_NAME,
  };
  const { window } = input;
  const leases = {
    kcm: leaseHolderTimeline(input.observations, names.kcm, window.to),
    ccm: leaseHolderTimeline(input.observations, names.ccm, window.to),
    migration: leaseHolderTimeline(input.observations, names.migration, window.to),
  };
  const points = [
    ...new Set([
      window.from,
      window.to,
      ...Object.values(leases).flatMap((spans) => spans.flatMap((s) => [s.from, s.to])),
    ]),
  ]
    .filter((t) => t >= window.from && t <= window.to)
    .sort((a, b) => a - b);
  const holderAt = (spans: readonly HolderSpan[], t: number): string | undefined =>
    spans.find((s) => s.from <= t && t < s.to)?.holder;
  const profileOf = (identity: string, component: ManagerComponent): ManagerProfile =>
    input.identityProfiles?.[identity] ?? input.profiles[component];

  const controllers = input.controllers ?? ALL;
  const byController = new Map<string, OwnershipInterval[]>(controllers.map((c) => [c, []]));
  for (let i = 0; i + 1 < points.length; i++) {
    const from = points[i]!;
    const to = points[i + 1]!;
    const mid = (from + to) / 2;
    const main: Record<ManagerComponent, string | undefined> = {
      'kube-controller-manager': holderAt(leases.kcm, mid),
      'cloud-controller-manager': holderAt(leases.ccm, mid),
    };
    const migrationHolder = holderAt(leases.migration, mid);
    for (const logical of controllers) {
      for (const component of ['kube-controller-manager', 'cloud-controller-manager'] as const) {
        const owner = main[component];
        if (owner === undefined) continue;
        const profile = profileOf(owner, component);
        const name = controllerName(logical, profile.version);
        const lease = leaseFor(component, profile, logical);
        // Migrated controllers run under the migration lease, and only in the main-lease holder that also holds it.
        if (lease === undefined || (lease === 'migration' && migrationHolder !== owner)) continue;
        byController
          .get(logical)!
          .push({ identity: owner, component, controllerName: name, from, to, open: false });
      }
    }
  }
  const merged = new Map([...byController].map(([name, list]) => [name, mergeAdjacent(list)]));
  const report = ownershipReport(merged, window);
  return { ...report, leases };
}

/**
 * Under which lease a manager with `profile` runs a logical controller: its main lease, the migration lease,
 * or not at all (it does not have it, has no in-tree cloud provider, or the configuration gives it to another
 * manager).
 */
export function leaseFor(
  component: ManagerComponent,
  profile: ManagerProfile,
  logical: LogicalController,
): 'main' | 'migration' | undefined {
  const name = controllerName(logical, profile.version);
  if (!runs(component, profile, logical, name)) return undefined;
  const ownership = profile.migration ? filterController(profile.migration, component)(name) : 'non-migrated';
  return ownership === 'migrated' ? 'migration' : ownership === 'unowned' ? undefined : 'main';
}

function runs(
  component: ManagerComponent,
  profile: ManagerProfile,
  logical: LogicalController,
  name: string,
): boolean {
  if (!controllersOf(component, profile.version).includes(name)) return false;
  return !(
    component === 'kube-controller-manager' &&
    CLOUD_PROVIDER_CONTROLLERS.has(logical) &&
    !profile.cloudControllers
  );
}

function mergeAdjacent(intervals: readonly OwnershipInterval[]): OwnershipInterval[] {
  const out: OwnershipInterval[] = [];
  for (const i of [...intervals].sort((a, b) => a.identity.localeCompare(b.identity) || a.from - b.from)) {
    const last = out[out.length - 1];
    if (last && last.identity === i.identity && last.component === i.component && last.to === i.from) {
      out[out.length - 1] = { ...last, to: i.to };
    } else out.push(i);
  }
  return out.sort((a, b) => a.from - b.from);
}
