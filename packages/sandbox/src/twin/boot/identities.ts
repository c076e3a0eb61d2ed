import type { Random } from 'uproot';
import type { Identity } from '../../apiserver/index.js';

/**
 * The identities a twin's API servers accept, one bearer token each: the admin (system:masters), the
 * kube-controller-manager (user system:kube-controller-manager, as its kubeconfig authenticates), the CCM's
 * service account, and a node identity (group system:nodes). Tokens are drawn from the scenario's seeded
 * random, so they are sandbox-only values, written nowhere but the 0600 kubeconfig.
 */
export interface TwinIdentities {
  readonly admin: Identity;
  readonly kcm: Identity;
  readonly ccm: Identity;
  readonly node: Identity;
  readonly rancher: Identity;
  /** The cluster owner Rancher's `<cluster>-kubeconfig` Secret authenticates as (RKE2 under Rancher). */
  readonly clusterOwner: Identity;
}

function token(random: Random): string {
  let out = '';
  for (let i = 0; i < 40; i++) out += Math.floor(random() * 36).toString(36);
  return out;
}

export function twinIdentities(random: Random): TwinIdentities {
  return {
    admin: { name: 'admin', token: token(random), user: 'admin', groups: ['system:masters'] },
    kcm: { name: 'kube-controller-manager', token: token(random), user: 'system:kube-controller-manager' },
    ccm: {
      name: 'cloud-controller-manager',
      token: token(random),
      user: 'system:serviceaccount:kube-system:cloud-controller-manager',
    },
    node: { name: 'node', token: token(random), user: 'system:node:sandbox', groups: ['system:nodes'] },
    rancher: { name: 'rancher-admin', token: token(random), user: 'admin', groups: ['system:masters'] },
    // Drawn last, so the identities above keep the tokens they had before it existed.
    clusterOwner: {
      name: 'cluster-owner',
      token: token(random),
      user: 'u-sandbox-owner',
      groups: ['system:masters'],
    },
  };
}

/** The node identity as the kubelet of `nodeName` authenticates (`system:node:<name>`, group system:nodes). */
export function withNodeIdentity(identities: TwinIdentities, nodeName: string | undefined): TwinIdentities {
  if (!nodeName) return identities;
  return { ...identities, node: { ...identities.node, user: `system:node:${nodeName}` } };
}
