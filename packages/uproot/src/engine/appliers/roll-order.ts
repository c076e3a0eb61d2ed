/**
 * The order in which a manager's static pods restart, one control-plane node at a time: the node whose
 * manager leads goes last. Restarting a standby costs nothing; restarting the leader leaves its controllers
 * without a leader until a standby takes the lease (LeaseDuration + RetryPeriod, client-go's
 * tryAcquireOrRenew: a lease is taken over only once it has expired). Every standby restarted before it is
 * up and waiting when that happens; the leader restarted first would leave only standbys that the roll is
 * about to restart, and each of those restarts can come while it has just taken the lease.
 */
import {
  hostOfIdentity,
  LEASE_FRESHNESS_GRACE_SECONDS,
  LEASE_NAMESPACE,
  namesHost,
} from '../../core/ownership/index.js';
import type { LeaseFacts, ManagerComponent } from '../gates/gate-facts.js';

export interface RollOrder {
  /** Every node once, the leaders last. */
  readonly nodes: readonly string[];
  /** The nodes whose manager holds one of its leases, in the order they go (the main lease's holder last). */
  readonly holders: readonly string[];
}

function otherManager(component: ManagerComponent): ManagerComponent {
  return component === 'kube-controller-manager' ? 'cloud-controller-manager' : 'kube-controller-manager';
}

/**
 * `nodes` reordered so that the node whose `component` holds its main lease (kube-system/<component>) goes
 * last, and the node whose `component` holds a migration lease just before it; the others keep their order.
 * A manager uses one identity (`<hostname>_<uuid>`) for all its leases, so a migration lease held by the
 * other manager's identity is not this one's; one held by an identity neither main lease names (a stale
 * holder) counts as this one's, which only moves a node later.
 */
export function rollOrder(
  nodes: readonly string[],
  component: ManagerComponent,
  leases: readonly LeaseFacts[],
  migrationLeases: ReadonlySet<string>,
): RollOrder {
  const holderOf = (name: string): string | undefined =>
    leases.find((l) => l.name === name)?.holderIdentity || undefined;
  const main = holderOf(component);
  const other = holderOf(otherManager(component));
  const migrating = [...migrationLeases]
    .map(holderOf)
    .filter((h): h is string => h !== undefined && h !== other);
  const on = (identity: string | undefined, node: string): boolean =>
    identity !== undefined && namesHost(node, hostOfIdentity(identity));
  const rank = (node: string): number =>
    on(main, node) ? 2 : migrating.some((identity) => on(identity, node)) ? 1 : 0;
  const ranked = nodes.map((node, index) => ({ node, index, rank: rank(node) }));
  ranked.sort((a, b) => a.rank - b.rank || a.index - b.index);
  return {
    nodes: ranked.map((r) => r.node),
    holders: ranked.filter((r) => r.rank > 0).map((r) => r.node),
  };
}

/** Whether a lease has a holder that renewed it within its duration (plus clock-skew grace) before `now`. */
export function leaseLive(lease: LeaseFacts | undefined, now: number): boolean {
  if (!lease?.holderIdentity || !lease.renewTime) return false;
  const renewed = Date.parse(lease.renewTime);
  const limit = ((lease.leaseDurationSeconds ?? 15) + LEASE_FRESHNESS_GRACE_SECONDS) * 1000;
  return !Number.isNaN(renewed) && now - renewed <= limit;
}

export type Handover =
  | { readonly type: 'handed-over'; readonly to: string }
  | { readonly type: 'waiting'; readonly detail: string };

/**
 * After the leader's node restarted: whether `component`'s lease has gone to a live holder other than
 * `before`, the identity that led when the node was touched (a restarted manager takes a new identity, so the
 * same node leading again counts). Until then the controllers have no leader, and restarting the other
 * manager's leader now would add its handover to this one's gap instead of running beside it.
 */
export function handedOver(
  leases: readonly LeaseFacts[],
  component: ManagerComponent,
  before: string,
  now: number,
): Handover {
  const lease = leases.find((l) => l.name === component);
  const holder = lease?.holderIdentity;
  if (!holder) return { type: 'waiting', detail: `lease ${LEASE_NAMESPACE}/${component} has no holder` };
  if (holder === before)
    return { type: 'waiting', detail: `lease ${LEASE_NAMESPACE}/${component} is still held by ${before}` };
  if (!leaseLive(lease, now))
    return {
      type: 'waiting',
      detail: `lease ${LEASE_NAMESPACE}/${component} is held by ${holder} but not renewed`,
    };
  return { type: 'handed-over', to: holder };
}
