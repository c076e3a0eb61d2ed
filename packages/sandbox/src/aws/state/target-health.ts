import type { Ec2Instance } from './ec2-types.js';
import type { Target, TargetGroup, TargetHealthDescription } from './elbv2-types.js';

/**
 * Target health as ELBv2 reports it: `unused` for targets that are not registered, whose group no listener
 * forwards to, or whose instance is not running; a scenario's forced state when set; otherwise `healthy`.
 */
export function describeTargetHealth(
  group: TargetGroup,
  inUse: boolean,
  instanceOf: (id: string) => Ec2Instance | undefined,
  wanted?: readonly { id: string; port?: number | undefined }[],
): TargetHealthDescription[] {
  const healthCheckPort = (t: Target): string =>
    group.healthCheck.port === 'traffic-port' ? String(t.port) : group.healthCheck.port;
  const list =
    wanted && wanted.length > 0
      ? wanted.map((w) => ({ id: w.id, port: w.port ?? group.port }))
      : group.targets;
  return list.map((target) => {
    const registered = group.targets.some((t) => t.id === target.id && t.port === target.port);
    if (!registered) {
      return {
        target,
        healthCheckPort: healthCheckPort(target),
        state: 'unused',
        reason: 'Target.NotRegistered',
        description: 'Target is not registered to the target group',
      };
    }
    const override = group.healthOverrides.get(target.id);
    if (override !== undefined) {
      const reason = override === 'unhealthy' ? 'Target.FailedHealthChecks' : undefined;
      return {
        target,
        healthCheckPort: healthCheckPort(target),
        state: override,
        reason,
        description: reason ? 'Health checks failed' : undefined,
      };
    }
    if (!inUse) {
      return {
        target,
        healthCheckPort: healthCheckPort(target),
        state: 'unused',
        reason: 'Target.NotInUse',
        description: 'Target group is not configured to receive traffic from the load balancer',
      };
    }
    const instance = group.targetType === 'instance' ? instanceOf(target.id) : undefined;
    if (group.targetType === 'instance' && instance?.state !== 'running') {
      return {
        target,
        healthCheckPort: healthCheckPort(target),
        state: 'unused',
        reason: 'Target.InvalidState',
        description: `Target is in the ${instance?.state ?? 'terminated'} state`,
      };
    }
    return {
      target: { ...target, availabilityZone: instance?.availabilityZone },
      healthCheckPort: healthCheckPort(target),
      state: 'healthy',
    };
  });
}
