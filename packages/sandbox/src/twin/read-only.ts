import type { FaultHandle as KubeFaultHandle } from '../apiserver/faults/fault-injector.js';
import type { FaultHandle as AwsFaultHandle } from '../aws/faults/fault-injector.js';
import type { Twin } from './twin.js';

/**
 * A twin that refuses every write of one person (issue 27): each non-GET request the given Kubernetes user
 * sends to either API server answers 403 Forbidden, and each AWS call of the given caller that is not a
 * Describe/Get/List answers AccessDenied. SubjectAccessReviews are let through: a review asks the authorizer
 * and persists nothing (kubernetes/kubernetes pkg/registry/authorization/subjectaccessreview/rest.go Create
 * returns the status without storing the object). The twin's own machinery (kubelets, managers, Rancher)
 * runs as other identities or in process, so it keeps working. `writes()` counts what was refused.
 */
export interface ReadOnlyTwin {
  /** Requests refused so far (each one a write the person attempted). */
  writes(): number;
  remove(): void;
}

const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** Every path but a SubjectAccessReview (authorization.k8s.io). */
const NOT_A_REVIEW = /^(?!\/apis\/authorization\.k8s\.io\/)/;
/** AWS's read-only actions start with these verbs (IAM's read-only access policies match them alike). */
const NOT_A_READ = /^(?!(Describe|Get|List))/;

export function refuseWrites(
  twin: Pick<Twin, 'downstream' | 'management' | 'aws'>,
  who: { readonly kubeUser: string; readonly awsCaller: string },
): ReadOnlyTwin {
  const kube: KubeFaultHandle[] = [];
  for (const server of [twin.downstream, twin.management]) {
    if (!server) continue;
    for (const method of WRITE_METHODS) {
      kube.push(
        server.faults.add({
          match: { method, user: who.kubeUser, path: NOT_A_REVIEW },
          action: { type: 'status', code: 403, message: `read-only twin: ${method} refused` },
        }),
      );
    }
  }
  const aws: AwsFaultHandle = twin.aws.faults.fail({
    action: NOT_A_READ,
    caller: who.awsCaller,
    code: 'AccessDenied',
    status: 403,
    message: 'read-only twin: only Describe, Get and List calls are allowed',
  });
  return {
    writes: () => kube.reduce((n, h) => n + h.hits(), 0) + aws.fired,
    remove: () => {
      for (const h of kube) h.remove();
      aws.remove();
    },
  };
}
