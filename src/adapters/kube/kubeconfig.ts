import { KubeConfig } from '@kubernetes/client-node';
import { existsSync } from 'node:fs';
import { AccessError, InputError } from '../../errors/index.js';

export interface KubeTarget {
  /** Path to a kubeconfig; defaults to $KUBECONFIG, then ~/.kube/config. */
  readonly kubeconfig?: string;
  /** Context name; defaults to the kubeconfig's current context. */
  readonly context?: string;
}

/**
 * Loads a kubeconfig and selects a context, failing with a located InputError (exit 2) when either is missing.
 * TLS verification stays as the kubeconfig says (on unless it sets insecure-skip-tls-verify).
 * Never include credentials in an error message.
 */
export function loadKubeConfig(
  target: KubeTarget,
  env: Readonly<Record<string, string | undefined>> = process.env,
): KubeConfig {
  const kc = new KubeConfig();
  const path = target.kubeconfig ?? env.KUBECONFIG;
  try {
    if (path) {
      const first = path.split(':')[0]!;
      if (!existsSync(first)) {
        throw new InputError('UP-KUBECONFIG-MISSING', `kubeconfig "${first}" does not exist`, {
          location: { file: first, field: target.kubeconfig ? '--kubeconfig' : 'KUBECONFIG' },
          hint: 'pass --kubeconfig with the path to a kubeconfig file, or run `uproot sandbox up` to get one',
        });
      }
      kc.loadFromFile(first);
    } else {
      kc.loadFromDefault();
    }
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError('UP-KUBECONFIG-INVALID', `could not read kubeconfig: ${(error as Error).message}`, {
      location: { file: path ?? '~/.kube/config' },
      hint: 'check that the file is a valid kubeconfig (kubectl config view --kubeconfig FILE)',
    });
  }
  if (target.context) {
    if (!kc.getContextObject(target.context)) {
      throw new InputError('UP-KUBECONFIG-CONTEXT', `context "${target.context}" is not in the kubeconfig`, {
        location: { file: path ?? '~/.kube/config', field: '--context', value: target.context },
        hint: `use one of: ${
          kc
            .getContexts()
            .map((c) => c.name)
            .join(', ') || '(none)'
        }`,
      });
    }
    kc.setCurrentContext(target.context);
  }
  if (!kc.getCurrentCluster()) {
    throw new InputError('UP-KUBECONFIG-NO-CLUSTER', 'the kubeconfig has no current context with a cluster', {
      location: { file: path ?? '~/.kube/config', field: 'current-context' },
      hint: 'pass --context NAME, or set current-context in the kubeconfig',
    });
  }
  return kc;
}

/** A short, secret-free description of where we are pointed, for logs and reports. */
export function describeTarget(kc: KubeConfig): { context: string; server: string; user: string } {
  return {
    context: kc.getCurrentContext(),
    server: kc.getCurrentCluster()?.server ?? '(none)',
    user: kc.getCurrentUser()?.name ?? '(none)',
  };
}

/** Maps client-node's ApiException and network errors to an AccessError with a useful message. */
export function kubeAccessError(error: unknown, what: string): AccessError {
  const e = error as { code?: number; body?: unknown; message?: string };
  let detail = e.message ?? String(error);
  if (typeof e.code === 'number') {
    const body = typeof e.body === 'string' ? safeParse(e.body) : e.body;
    const message = (body as { message?: string } | undefined)?.message;
    detail = `HTTP ${e.code}${message ? `: ${message}` : ''}`;
  }
  return new AccessError('UP-KUBE-ACCESS', `${what} failed: ${detail}`, {
    cause: error,
    hint:
      e.code === 401
        ? 'the kubeconfig credentials were rejected; refresh them'
        : e.code === 403
          ? 'the kubeconfig user lacks a permission uproot needs; see docs/permissions.md'
          : 'check that the cluster is reachable with `kubectl --context ... get nodes`',
  });
}

function safeParse(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}
