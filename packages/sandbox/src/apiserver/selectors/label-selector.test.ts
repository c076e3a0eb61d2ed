import { describe, expect, it } from 'vitest';
import { ApiStatusError } from '../status/api-status-error.js';
import { labelSelectorFromSpec, parseLabelSelector } from './label-selector.js';

const labels = { 'node-role.kubernetes.io/control-plane': 'true', tier: 'web', env: 'prod', count: '5' };

describe('parseLabelSelector', () => {
  it.each([
    ['', true],
    ['tier=web', true],
    ['tier==web', true],
    ['tier!=web', false],
    ['tier!=api', true],
    ['missing!=x', true],
    ['env in (prod, staging)', true],
    ['env notin (prod)', false],
    ['missing notin (prod)', true],
    ['node-role.kubernetes.io/control-plane', true],
    ['!node-role.kubernetes.io/control-plane', false],
    ['!missing', true],
    ['node-role.kubernetes.io/control-plane=true,tier=web', true],
    ['node-role.kubernetes.io/control-plane=true,tier=api', false],
    ['  tier = web ,  env in(prod) ', true],
    ['count>4', true],
    ['count<5', false],
    ['tier=', false],
  ])('%s matches: %s', (selector, expected) => {
    expect(parseLabelSelector(selector).matches(labels)).toBe(expected);
  });

  it('matches an empty value only when the label is empty', () => {
    expect(parseLabelSelector('a=').matches({ a: '' })).toBe(true);
    expect(parseLabelSelector('a=').matches({})).toBe(false);
  });

  it.each([
    'tier=web,',
    'env in (prod',
    'env in prod',
    '=web',
    'tier=we b',
    'bad key!=x',
    'a/b/c=1',
    'tier ~ web',
  ])('rejects %s with a 400 BadRequest', (selector) => {
    let error: unknown;
    try {
      parseLabelSelector(selector);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiStatusError);
    expect((error as ApiStatusError).status).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect((error as ApiStatusError).message).toMatch(/^unable to parse requirement: /);
  });

  it('converts a metav1.LabelSelector', () => {
    const s = labelSelectorFromSpec({
      matchLabels: { tier: 'web' },
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['prod'] },
        { key: 'gone', operator: 'DoesNotExist' },
      ],
    });
    expect(s.matches(labels)).toBe(true);
    expect(s.matches({ ...labels, gone: 'x' })).toBe(false);
  });
});
