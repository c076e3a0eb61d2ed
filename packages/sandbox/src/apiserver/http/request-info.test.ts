import { describe, expect, it } from 'vitest';
import { parseRequestInfo } from './request-info.js';

const q = (s = '') => new URLSearchParams(s);

describe('parseRequestInfo', () => {
  it('parses namespaced objects with colons in names', () => {
    const info = parseRequestInfo(
      'PATCH',
      '/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/roles/system::leader-locking-kube-controller-manager',
      q(),
    );
    expect(info).toMatchObject({
      isResourceRequest: true,
      verb: 'patch',
      apiGroup: 'rbac.authorization.k8s.io',
      apiVersion: 'v1',
      namespace: 'kube-system',
      resource: 'roles',
      name: 'system::leader-locking-kube-controller-manager',
      subresource: '',
    });
  });

  it('turns collection GETs into list or watch, and DELETE into deletecollection', () => {
    expect(parseRequestInfo('GET', '/api/v1/nodes', q('limit=500')).verb).toBe('list');
    expect(parseRequestInfo('GET', '/api/v1/nodes', q('watch=true')).verb).toBe('watch');
    expect(parseRequestInfo('GET', '/api/v1/watch/namespaces/a/pods', q()).verb).toBe('watch');
    expect(parseRequestInfo('DELETE', '/api/v1/namespaces/a/pods', q()).verb).toBe('deletecollection');
  });

  it('authorises a list by name when the field selector pins metadata.name', () => {
    const info = parseRequestInfo(
      'GET',
      '/apis/apps/v1/namespaces/kube-system/daemonsets',
      q('fieldSelector=metadata.name%3Dccm'),
    );
    expect(info).toMatchObject({ verb: 'list', name: 'ccm' });
  });

  it('treats the namespaces resource like upstream (namespace = name) and keeps subresources', () => {
    expect(parseRequestInfo('GET', '/api/v1/namespaces/foo', q())).toMatchObject({
      resource: 'namespaces',
      name: 'foo',
      namespace: 'foo',
    });
    expect(parseRequestInfo('PUT', '/api/v1/namespaces/foo/status', q())).toMatchObject({
      resource: 'namespaces',
      name: 'foo',
      subresource: 'status',
    });
    expect(parseRequestInfo('PATCH', '/api/v1/nodes/n1/status', q())).toMatchObject({
      resource: 'nodes',
      name: 'n1',
      subresource: 'status',
      namespace: '',
    });
  });

  it('leaves discovery and health as non-resource requests', () => {
    for (const p of ['/api', '/api/v1', '/apis', '/apis/apps', '/apis/apps/v1', '/version', '/healthz']) {
      expect(parseRequestInfo('GET', p, q())).toMatchObject({
        isResourceRequest: false,
        verb: 'get',
        path: p,
      });
    }
  });
});
