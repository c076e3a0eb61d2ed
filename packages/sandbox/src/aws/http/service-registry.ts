import type { Authorizer } from '../auth/authorizer.js';
import { autoScalingService } from '../services/autoscaling.js';
import { ec2Service } from '../services/ec2/index.js';
import { elbService } from '../services/elb.js';
import { elbv2Service } from '../services/elbv2.js';
import { iamService } from '../services/iam.js';
import type { ServiceDefinition } from '../services/service-types.js';
import { stsService } from '../services/sts.js';

/**
 * Picks the service for a request. Every call is `POST /`, so the signing name in the credential scope decides,
 * and `Version` splits the two load balancer APIs that share `elasticloadbalancing`. Unsigned requests are
 * routed by `Version` alone (so they can be answered with the right error shape).
 */
export class ServiceRegistry {
  readonly services: readonly ServiceDefinition[];

  constructor(authorizer: Authorizer) {
    this.services = [
      ec2Service,
      elbService,
      elbv2Service,
      iamService(authorizer),
      stsService,
      autoScalingService,
    ];
  }

  route(signingName: string | undefined, version: string | undefined): ServiceDefinition | undefined {
    if (signingName === undefined) return this.services.find((s) => s.descriptor.version === version);
    const candidates = this.services.filter((s) => s.descriptor.signingName === signingName);
    if (candidates.length <= 1) return candidates[0];
    return candidates.find((s) => s.descriptor.version === version) ?? candidates[0];
  }
}
