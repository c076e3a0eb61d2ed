/**
 * Where an IMDS request goes. Several simulated instances share one port, told apart by the documented prefix
 * `/_instance/<instance-id>/latest/...`; clients that join an endpoint and a path add a slash (`//latest/...`),
 * so runs of slashes are collapsed first.
 */
const INSTANCE_PREFIX = /^\/_instance\/([^/]+)(\/.*)?$/;

/** Splits `//_instance/i-1//latest/meta-data/x` into the instance and the path after `/latest/`. */
export function parseImdsPath(rawPath: string): {
  instanceId: string | undefined;
  latestPath: string | undefined;
} {
  const path = rawPath.replace(/\/{2,}/g, '/');
  let rest = path;
  let instanceId: string | undefined;
  const prefixed = INSTANCE_PREFIX.exec(path);
  if (prefixed) {
    instanceId = safeDecode(prefixed[1]!);
    rest = prefixed[2] ?? '/';
  }
  if (rest === '/latest' || rest === '/latest/') return { instanceId, latestPath: '' };
  if (!rest.startsWith('/latest/')) return { instanceId, latestPath: undefined };
  return { instanceId, latestPath: rest.slice('/latest/'.length) };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
