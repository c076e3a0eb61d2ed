import type { Clock } from 'uproot';
import { KubeCallError, toKubeCallError, type KubeApi } from '../cloud-controllers/kube-api.js';

/**
 * The token a controller acts with under --use-service-account-credentials, as controller-manager
 * pkg/clientbuilder/client_builder_dynamic.go gets it: the manager (with its own credentials) makes sure
 * the account exists, asks TokenRequest for a one-hour token, and asks again once 80% of its lifetime
 * has passed (defaultExpirationSeconds 3600, defaultLeewayPercent 20). Failures reach the controller's call.
 */
export function serviceAccountTokenSource(
  manager: KubeApi,
  namespace: string,
  name: string,
  clock: Clock,
): () => Promise<string> {
  let cached: { token: string; refreshAt: number } | undefined;
  let pending: Promise<string> | undefined;
  return () => {
    if (cached && clock.now() < cached.refreshAt) return Promise.resolve(cached.token);
    pending ??= (async () => {
      try {
        await manager.ensureServiceAccount(namespace, name);
        const { token, lifetimeMs } = await manager.requestToken(namespace, name, 3600);
        cached = { token, refreshAt: clock.now() + lifetimeMs * 0.8 };
        return token;
      } catch (error) {
        const e = toKubeCallError(error, 'token request');
        throw new KubeCallError(
          `failed to get token for ${namespace}/${name}: ${e.message}`,
          e.status,
          e.reason,
          error,
        );
      } finally {
        pending = undefined;
      }
    })();
    return pending;
  };
}
