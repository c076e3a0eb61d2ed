import { describe, expect, it } from 'vitest';
import { describeCommand, parseCommandTemplate, renderCommand } from './command-template.js';
import { redactSecrets } from '../redact.js';

describe('command templates', () => {
  it('splits words without a shell and substitutes placeholders per node', () => {
    const t = parseCommandTemplate(
      `ssh -o 'StrictHostKeyChecking yes' {node} sudo tee {path}`,
      '--node-command',
      ['node', 'path'],
    );
    expect(
      renderCommand(t, {
        node: 'cp-1.internal',
        path: '/etc/kubernetes/manifests/kube-controller-manager.yaml',
      }),
    ).toEqual([
      'ssh',
      '-o',
      'StrictHostKeyChecking yes',
      'cp-1.internal',
      'sudo',
      'tee',
      '/etc/kubernetes/manifests/kube-controller-manager.yaml',
    ]);
  });

  it.each([
    ['ssh {node} tee', /no \{path\} placeholder/],
    ["ssh '{node} tee {path}", /unclosed ' quote/],
    ['ssh {host} tee {path} {node}', /unknown placeholder \{host\}/],
    ['   ', /no command/],
  ])('rejects %j with a located error', (template, message) => {
    expect(() => parseCommandTemplate(template, '--node-command', ['node', 'path'])).toThrow(message);
  });

  it('refuses values that could carry shell syntax to the remote side', () => {
    const t = parseCommandTemplate('ssh {node} sudo tee {path}', '--node-command', ['node', 'path']);
    expect(() => renderCommand(t, { node: 'cp1;rm -rf /', path: '/etc/x' })).toThrow(/not safe/);
    expect(() => renderCommand(t, { node: 'cp1', path: '/etc/$(reboot)' })).toThrow(/not safe/);
  });
});

describe('redactSecrets', () => {
  it.each([
    ['--token=abc.def.ghi', '--token=<redacted>'],
    ['Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.payload', 'Authorization: Bearer <redacted>'],
    ['aws_secret_access_key = wJalrXUtnFEMI/K7MDENG', 'aws_secret_access_key = <redacted>'],
    ['key AKIAIOSFODNN7EXAMPLE used', 'key <redacted access key> used'],
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----', '<redacted private key>'],
    ['INFO[0001] Building Kubernetes cluster', 'INFO[0001] Building Kubernetes cluster'],
  ])('%j → %j', (input, output) => {
    expect(redactSecrets(input)).toBe(output);
  });

  it('redacts command lines shown to people', () => {
    expect(describeCommand('rke', ['up', '--config', 'cluster.yml', '--token=s3cr3t'])).toBe(
      'rke up --config cluster.yml --token=<redacted>',
    );
  });
});
