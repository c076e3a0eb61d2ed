import { KubeConfig } from '@kubernetes/client-node';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { AccessError, InputError } from '../../errors/index.js';

export interface KubeTarget {
  /** Path to a kubeconfig; defaults to $KUBECONFIG, then ~/.kube/config. */
  readonly kubeconfig?: string;
  /** Context name; defaults to the kubeconfig's current context. */
  readonly context?: string;
  /** The flag the user named the context with, for errors (default --context; Rancher's is --rancher-context). */
  readonly contextFlag?: string;
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
      loadDefault(kc, env);
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
        location: {
          file: path ?? '~/.kube/config',
          field: target.contextFlag ?? '--context',
          value: target.context,
        },
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

/** Where client-go reads a pod's service account (rest.InClusterConfig). */
const IN_CLUSTER_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/**
 * Without --kubeconfig or KUBECONFIG: ~/.kube/config, else the pod's service account when uproot runs in a
 * cluster, as kubectl looks. With none of them, say so: client-node would otherwise fall back to an
 * unauthenticated http://localhost:8080 and fail later with "HTTP protocol is not allowed when skipTLSVerify
 * is not set or false", which names none of this.
 */
function loadDefault(kc: KubeConfig, env: Readonly<Record<string, string | undefined>>): void {
  const home = env.HOME || env.USERPROFILE || homedir();
  const file = join(home, '.kube', 'config');
  if (existsSync(file)) {
    kc.loadFromFile(file);
    return;
  }
  if (env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT && existsSync(IN_CLUSTER_TOKEN)) {
    kc.loadFromCluster();
    return;
  }
  if (process.platform === 'win32') {
    kc.loadFromDefault(); // client-node also looks into WSL there
    if (kc.getCurrentCluster()?.server !== 'http://localhost:8080') return;
  }
  throw new InputError(
    'UP-KUBECONFIG-NONE',
    `no kubeconfig found: KUBECONFIG is not set, ${file} does not exist, and uproot is not running in a pod (no service account token at ${IN_CLUSTER_TOKEN})`,
    {
      location: { field: '--kubeconfig' },
      hint: 'pass --kubeconfig FILE (and --context NAME if it has several), or export KUBECONFIG=FILE; for the sandbox, `uproot sandbox up` prints one',
    },
  );
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
