import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { renderKubeconfig, writeKubeconfig } from './kubeconfig.js';
import { createServingCertificate } from './tls/self-signed-certificate.js';

const admin = { name: 'admin', token: 'secret-admin', user: 'admin', groups: ['system:masters'] };
const kcm = { name: 'kcm', token: 'secret-kcm', user: 'system:kube-controller-manager' };

describe('writeKubeconfig', () => {
  it('writes clusters, users and contexts with mode 0600', () => {
    const dir = mkdtempSync(join(tmpdir(), 'uproot-kubeconfig-'));
    const path = join(dir, 'nested', 'config');
    writeKubeconfig(
      path,
      [
        {
          clusterName: 'downstream',
          server: 'https://127.0.0.1:6443',
          identity: admin,
          contextName: 'admin',
          certificateAuthority: 'PEM',
        },
        {
          clusterName: 'downstream',
          server: 'https://127.0.0.1:6443',
          identity: kcm,
          contextName: 'kcm',
          namespace: 'kube-system',
          certificateAuthority: 'PEM',
        },
        { clusterName: 'rancher', server: 'http://127.0.0.1:7443', identity: admin, contextName: 'rancher' },
      ],
      'kcm',
    );
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const doc = parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    expect(doc['current-context']).toBe('kcm');
    expect(doc.clusters).toEqual([
      {
        name: 'downstream',
        cluster: {
          server: 'https://127.0.0.1:6443',
          'certificate-authority-data': Buffer.from('PEM').toString('base64'),
        },
      },
      { name: 'rancher', cluster: { server: 'http://127.0.0.1:7443', 'insecure-skip-tls-verify': true } },
    ]);
    expect(doc.users).toEqual([
      { name: 'admin', user: { token: 'secret-admin' } },
      { name: 'kcm', user: { token: 'secret-kcm' } },
    ]);
    expect(doc.contexts).toContainEqual({
      name: 'kcm',
      context: { cluster: 'downstream', user: 'kcm', namespace: 'kube-system' },
    });
  });

  it('rejects an unknown current context', () => {
    expect(() =>
      renderKubeconfig([{ clusterName: 'c', server: 'https://x', identity: admin, contextName: 'a' }], 'b'),
    ).toThrow(/current context "b"/);
  });
});

describe('createServingCertificate', () => {
  it('issues a loopback serving certificate signed by its CA', () => {
    const now = Date.now();
    const pair = createServingCertificate(now);
    const ca = new X509Certificate(pair.caCertificate);
    const leaf = new X509Certificate(pair.certificate);
    expect(ca.ca).toBe(true);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(leaf.checkHost('localhost')).toBe('localhost');
    expect(Date.parse(leaf.validTo)).toBeGreaterThan(now);
  });
});
