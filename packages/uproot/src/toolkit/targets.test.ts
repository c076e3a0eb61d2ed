import { describe, expect, it } from 'vitest';
import { validateTargets } from './targets.js';

describe('the target flags, checked once for every command', () => {
  it.each([
    [{ rancherContext: 'rancher' }, 'UP-TARGET-FLAGS', '--cluster'],
    [{ cluster: 'prod' }, 'UP-TARGET-FLAGS', '--rancher-context'],
    [
      { rancherContext: 'rancher', cluster: 'prod', clusterFile: 'c.yml' },
      'UP-TARGET-FLAGS',
      '--cluster-file',
    ],
    [{ rancherContext: 'rancher', cluster: 'a/b/c' }, 'UP-CLUSTER-REF-INVALID', '--cluster'],
    [{ rancherContext: 'rancher', cluster: 'Prod' }, 'UP-CLUSTER-REF-INVALID', '--cluster'],
  ])('%j is refused with %s naming %s', (flags, code, field) => {
    expect(() => validateTargets(flags)).toThrow(
      expect.objectContaining({ code, location: expect.objectContaining({ field }) }),
    );
  });

  it('accepts one source of the cluster definition', () => {
    expect(() => validateTargets({})).not.toThrow();
    expect(() => validateTargets({ context: 'c', clusterFile: 'cluster.yml' })).not.toThrow();
    expect(() => validateTargets({ rancherContext: 'rancher', cluster: 'fleet-default/prod' })).not.toThrow();
  });
});
