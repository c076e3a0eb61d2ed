import { gitVersionOfImage } from '../layout/versions.js';

/** What the twin needs to know of a machine to pick the kube-apiserver that answers. */
export interface ApiserverHost {
  readonly instance: { readonly role: string };
  components(): readonly { readonly component: string; readonly image: string; readonly running: boolean }[];
}

/**
 * The gitVersion `/version` reports (docs/decisions/0012-twin-versions.md): the kube-apiserver of the first
 * control-plane machine answers, or, while it is not running, the next one that runs; with none running, the
 * first machine's configured instance; with no control plane at all (a bare twin), `fallback`.
 */
export function servingGitVersion(machines: readonly ApiserverHost[], fallback: string): string {
  const instances = machines
    .filter((m) => m.instance.role === 'control-plane')
    .flatMap((m) => m.components().filter((c) => c.component === 'kube-apiserver'))
    .map((c) => ({ running: c.running, gitVersion: gitVersionOfImage(c.image) }))
    .filter((c): c is { running: boolean; gitVersion: string } => c.gitVersion !== undefined);
  return (instances.find((c) => c.running) ?? instances[0])?.gitVersion ?? fallback;
}
