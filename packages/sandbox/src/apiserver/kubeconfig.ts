import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { stringify } from 'yaml';
import { InputError } from 'uproot';
import type { Identity } from './auth/identity.js';

export interface KubeconfigEntry {
  readonly clusterName: string;
  readonly server: string;
  readonly identity: Identity;
  readonly contextName: string;
  readonly namespace?: string;
  /** PEM of the CA to trust for an https server (the sandbox's `certificateAuthority`). */
  readonly certificateAuthority?: string;
}

/**
 * A kubeconfig for kubectl and client-node: one cluster per server, one user per identity (token auth),
 * one context per entry. https servers with a CA get `certificate-authority-data` (verification on);
 * plain-http servers get `insecure-skip-tls-verify: true`, which client-node requires before it will talk
 * http at all (kubectl sends no credentials over http).
 */
export function renderKubeconfig(entries: readonly KubeconfigEntry[], currentContext: string): string {
  if (!entries.some((e) => e.contextName === currentContext)) {
    throw new InputError(
      'UP-SANDBOX-KUBECONFIG-CONTEXT',
      `current context "${currentContext}" is not one of the entries`,
      {
        location: { field: 'currentContext', value: currentContext },
        hint: `use one of: ${entries.map((e) => e.contextName).join(', ') || '(no entries given)'}`,
      },
    );
  }
  const clusters = new Map<string, unknown>();
  const users = new Map<string, unknown>();
  const contexts: unknown[] = [];
  for (const e of entries) {
    const existing = clusters.get(e.clusterName) as { cluster: { server: string } } | undefined;
    if (existing && existing.cluster.server !== e.server) {
      throw new InputError(
        'UP-SANDBOX-KUBECONFIG-CLUSTER',
        `cluster "${e.clusterName}" is given two servers`,
        {
          location: { field: 'clusterName', value: e.clusterName },
          hint: 'give each server its own cluster name',
        },
      );
    }
    clusters.set(e.clusterName, {
      name: e.clusterName,
      cluster: {
        server: e.server,
        ...(e.certificateAuthority
          ? { 'certificate-authority-data': Buffer.from(e.certificateAuthority).toString('base64') }
          : { 'insecure-skip-tls-verify': true }),
      },
    });
    users.set(e.identity.name, { name: e.identity.name, user: { token: e.identity.token } });
    contexts.push({
      name: e.contextName,
      context: {
        cluster: e.clusterName,
        user: e.identity.name,
        ...(e.namespace ? { namespace: e.namespace } : {}),
      },
    });
  }
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: [...clusters.values()],
    users: [...users.values()],
    contexts,
    'current-context': currentContext,
  });
}

/** Writes the kubeconfig with mode 0600 (it holds tokens). */
export function writeKubeconfig(
  path: string,
  entries: readonly KubeconfigEntry[],
  currentContext: string,
): void {
  const text = renderKubeconfig(entries, currentContext);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
}
