/**
 * Static pod manifests as kubeadm writes them: one container whose `command` is the binary followed by its
 * flags (some setups use `args`), hostPath volumes with matching mounts. Pure helpers over plain JSON.
 */
import { isRecord, type JsonRecord } from '../../model/json-value.js';

export function isPod(value: unknown): value is JsonRecord {
  return (
    isRecord(value) && value.kind === 'Pod' && isRecord(value.spec) && Array.isArray(value.spec.containers)
  );
}

export function containers(pod: JsonRecord): JsonRecord[] {
  const spec = pod.spec;
  return isRecord(spec) && Array.isArray(spec.containers) ? spec.containers.filter(isRecord) : [];
}

/** The container that runs `binary` (by name, or by its command/image). */
export function findContainer(pod: JsonRecord, binary: string): JsonRecord | undefined {
  return containers(pod).find(
    (c) =>
      c.name === binary ||
      (Array.isArray(c.command) && String(c.command[0] ?? '').endsWith(binary)) ||
      (typeof c.image === 'string' && c.image.includes(`/${binary}:`)),
  );
}

/** Where the flags are: `command` after the binary, else `args`. */
function flagField(container: JsonRecord): 'command' | 'args' {
  const command = Array.isArray(container.command) ? container.command : [];
  return command.slice(1).some((a) => typeof a === 'string' && a.startsWith('-')) ||
    !Array.isArray(container.args)
    ? 'command'
    : 'args';
}

export function flagsOf(container: JsonRecord): string[] {
  const field = flagField(container);
  const list = Array.isArray(container[field]) ? (container[field] as unknown[]) : [];
  const strings = list.filter((a): a is string => typeof a === 'string');
  return field === 'command' && strings[0] !== undefined && !strings[0].startsWith('-')
    ? strings.slice(1)
    : strings;
}

/** Replaces the container's flags (keeping the binary at command[0]). */
export function setFlags(container: JsonRecord, flags: readonly string[]): void {
  const field = flagField(container);
  const list = Array.isArray(container[field]) ? (container[field] as unknown[]) : [];
  const head =
    field === 'command' && typeof list[0] === 'string' && !list[0].startsWith('-') ? [list[0]] : [];
  container[field] = [...head, ...flags];
}

export interface HostPathFile {
  readonly name: string;
  readonly path: string;
  readonly readOnly: boolean;
  readonly type?: string;
}

/** Adds (or keeps) a hostPath volume and its mount in the container. */
export function withHostPath(pod: JsonRecord, container: JsonRecord, file: HostPathFile): void {
  const spec = pod.spec as JsonRecord;
  const volumes = Array.isArray(spec.volumes) ? spec.volumes : [];
  if (!volumes.some((v) => isRecord(v) && v.name === file.name)) {
    spec.volumes = [
      ...volumes,
      { hostPath: { path: file.path, ...(file.type ? { type: file.type } : {}) }, name: file.name },
    ];
  }
  const mounts = Array.isArray(container.volumeMounts) ? container.volumeMounts : [];
  if (!mounts.some((m) => isRecord(m) && m.name === file.name)) {
    // Key order as kubeadm writes it, so the added lines look like their neighbours.
    container.volumeMounts = [...mounts, { mountPath: file.path, name: file.name, readOnly: file.readOnly }];
  }
}

/** Removes a volume and its mounts. */
export function withoutHostPath(pod: JsonRecord, name: string): void {
  const spec = pod.spec as JsonRecord;
  if (Array.isArray(spec.volumes))
    spec.volumes = spec.volumes.filter((v) => !(isRecord(v) && v.name === name));
  for (const container of containers(pod)) {
    if (Array.isArray(container.volumeMounts)) {
      container.volumeMounts = container.volumeMounts.filter((m) => !(isRecord(m) && m.name === name));
    }
  }
}
