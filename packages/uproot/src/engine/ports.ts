/**
 * What the engine needs from the outside world, declared here and implemented by the adapters (Kubernetes
 * through client-node, files, processes). The engine depends on no adapter module; the toolkit builds them and
 * hands them in (src/toolkit/session). Tests use the real adapters against the sandbox over loopback.
 */
import type { ObjectRef } from '../core/model/plan-types.js';
import { UprootError } from '../errors/index.js';
import type { Journal } from './journal/journal-schema.js';

export type { GateReader } from './gates/gate-facts.js';

// --- Kubernetes objects -------------------------------------------------------------------------------------

/** A Kubernetes object as plain JSON (never a generated model that drops fields it does not know). */
export type KubeObject = Record<string, unknown> & {
  apiVersion?: string;
  kind?: string;
  metadata?: Record<string, unknown> & {
    name?: string;
    namespace?: string;
    resourceVersion?: string;
    uid?: string;
    generation?: number;
  };
};

export type PatchType = 'merge' | 'strategic' | 'json';

export interface ListSelector {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

export type ObjectKey = Pick<ObjectRef, 'apiVersion' | 'kind' | 'namespace' | 'name'>;

export function keyOf(obj: KubeObject): ObjectKey {
  return {
    apiVersion: obj.apiVersion ?? '',
    kind: obj.kind ?? '',
    name: obj.metadata?.name ?? '',
    ...(obj.metadata?.namespace ? { namespace: obj.metadata.namespace } : {}),
  };
}

/**
 * Object access in one cluster. Failed calls throw an UprootError carrying the HTTP `status` (see
 * `hasApiStatus`); `get` answers undefined for a missing object and `delete` false.
 */
export interface ObjectStore {
  get(ref: ObjectKey, signal?: AbortSignal): Promise<KubeObject | undefined>;
  list(apiVersion: string, kind: string, selector?: ListSelector, pageSize?: number): Promise<KubeObject[]>;
  create(obj: KubeObject): Promise<KubeObject>;
  /** PUT: fails with status 409 when obj.metadata.resourceVersion is not the current one. */
  replace(obj: KubeObject): Promise<KubeObject>;
  patch(ref: ObjectKey, type: PatchType, patch: unknown): Promise<KubeObject>;
  /** Server-side apply (creates the object when missing). */
  apply(obj: KubeObject, force?: boolean): Promise<KubeObject>;
  delete(ref: ObjectKey, preconditions?: { uid?: string; resourceVersion?: string }): Promise<boolean>;
  /** What the API server reports at /version (the control plane's release as it answers). */
  serverVersion(): Promise<{ readonly gitVersion: string }>;
}

/** True when an ObjectStore call failed with this HTTP status (409 Conflict, 415 Unsupported Media Type...). */
export function hasApiStatus(error: unknown, status: number): boolean {
  return UprootError.is(error) && (error as { readonly status?: unknown }).status === status;
}

// --- Files and processes ------------------------------------------------------------------------------------

export interface BackedUpWrite {
  readonly changed: boolean;
  /** Where the previous version was kept (undefined when nothing changed or the file did not exist). */
  readonly backupPath?: string;
}

/** The local files uproot edits (RKE's cluster.yml) or hands over (kubeadm's --manifests-out). */
export interface FileStore {
  /** The file's content, or undefined when it does not exist. */
  read(path: string): string | undefined;
  /** All or nothing: a crash leaves the old file or the new one. */
  writeAtomic(path: string, content: string): void;
  /** Replaces a user's file, keeping the previous version beside it; writes nothing when unchanged. */
  writeWithBackup(path: string, content: string, label: string, now: number): BackedUpWrite;
}

export interface CommandSpec {
  readonly file: string;
  readonly args: readonly string[];
  readonly stdin?: string;
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly timeoutMs: number;
  /** Bytes of stdout/stderr kept (the tail); default 64 KiB each. */
  readonly keepBytes?: number;
}

export type CommandResult =
  | {
      readonly type: 'exited';
      readonly exitCode: number;
      readonly stdout: string;
      readonly stderr: string;
      readonly durationMs: number;
    }
  | {
      readonly type: 'killed';
      readonly reason: 'timeout' | 'aborted' | 'signal';
      readonly signal?: string;
      readonly stdout: string;
      readonly stderr: string;
    }
  | { readonly type: 'not-started'; readonly message: string };

/** Runs a program (never through a shell): `rke up`, per-node commands. */
export interface CommandRunner {
  run(spec: CommandSpec, signal?: AbortSignal): Promise<CommandResult>;
}

// --- Journal and lock ---------------------------------------------------------------------------------------

export interface JournalStore {
  /** Where the journal lives, for messages. */
  readonly where: string;
  load(): Promise<Journal | undefined>;
  /** Saves with the next revision; returns the journal as saved. */
  save(journal: Journal): Promise<Journal>;
}

/** The migration lock: one writing run per cluster, renewed while it works. */
export interface MigrationLease {
  /** Takes the lock (or a dead holder's); throws a LockError when a live run holds it. */
  acquire(): Promise<{ tookOverFrom?: string }>;
  /** Renews in the background; `onLost` is called once if another run takes it or renewing fails. */
  startRenewing(onLost: (error: Error) => void): void;
  /** Stops renewing and frees the lock, if still ours. */
  release(): Promise<void>;
}
