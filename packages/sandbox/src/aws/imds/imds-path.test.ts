import { describe, expect, it } from 'vitest';
import { parseImdsPath } from './imds-path.js';

describe('parseImdsPath', () => {
  it.each([
    ['/latest/meta-data/instance-id', undefined, 'meta-data/instance-id'],
    ['//latest/meta-data/instance-id', undefined, 'meta-data/instance-id'],
    ['/_instance/i-0abc/latest/api/token', 'i-0abc', 'api/token'],
    ['/_instance/i-0abc//latest/meta-data/', 'i-0abc', 'meta-data/'],
    ['/_instance/i-0abc/latest', 'i-0abc', ''],
  ])('%s → instance %s, path %j', (raw, instanceId, latestPath) => {
    expect(parseImdsPath(raw)).toEqual({ instanceId, latestPath });
  });

  it('says when a path is not IMDS at all', () => {
    expect(parseImdsPath('/').latestPath).toBeUndefined();
    expect(parseImdsPath('/_instance/i-1/other').latestPath).toBeUndefined();
  });
});
