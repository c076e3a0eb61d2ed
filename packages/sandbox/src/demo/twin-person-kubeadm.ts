/**
 * The demo person's hands on a kubeadm twin's machines (`DIR/nodes/<node>/`): what a person does over SSH,
 * one machine at a time, control-plane machines first, checking that each came back before the next.
 * - static pod manifests: the image and flags of one container, edited in place (the machine's other
 *   settings, such as --advertise-address, are its own); the kubelet restarts the pod;
 * - the kubelet: KUBELET_KUBEADM_ARGS in the flags file and the installed package (`usr/bin/kubelet`, see
 *   docs/decisions/0012-twin-versions.md), then one `systemctl restart kubelet`;
 * - kubeadm's stored ClusterConfiguration (`kubectl -n kube-system edit configmap kubeadm-config`).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isSeq, parseDocument, type Document } from 'yaml';
import { type Clock, type ManualAction, InternalError } from 'uproot';
import { flagName, setFlag, withoutFlags } from 'uproot/core';
import { installKubelet } from '../twin/index.js';
import { isRecord, type KubeObject } from '../twin/kube/kube-types.js';
import { R, type TwinKube } from '../twin/kube/twin-kube.js';
import { KUBEADM_CONFIG, parseKubeletFlags } from '../twin/kubeadm/kubeadm-files.js';
import { staticPodName } from '../twin/nodes/static-pods.js';

type StaticPodEdit = Extract<ManualAction, { type: 'edit-static-pod' }>;
type KubeletEdit = Extract<ManualAction, { type: 'kubelet' }>;
type ConfigEdit = Extract<ManualAction, { type: 'edit-kubeadm-config' }>;

/** How long the person waits for a machine to come back before moving on (and saying so). */
const COMEBACK_MS = 10 * 60_000;
const LOOK_EVERY_MS = 2_000;

function flagEdits(
  args: readonly string[],
  edit: { setFlags?: Record<string, string>; removeFlags?: string[] },
): string[] {
  let out = withoutFlags(args, edit.removeFlags ?? []);
  for (const [name, value] of Object.entries(edit.setFlags ?? {})) out = setFlag(out, `--${name}=${value}`);
  return out;
}

function describeEdit(edit: StaticPodEdit | KubeletEdit): string {
  const parts = [
    ...('image' in edit && edit.image ? [`image ${edit.image}`] : []),
    ...Object.entries(edit.setFlags ?? {}).map(([n, v]) => `--${n}=${v}`),
    ...(edit.removeFlags ?? []).map((n) => `no --${n}`),
    ...(edit.type === 'kubelet' && edit.install ? [`package ${edit.install.package}`] : []),
  ];
  return parts.join(', ');
}

export class KubeadmHands {
  private readonly late: string[] = [];

  constructor(
    private readonly nodesDir: string,
    private readonly kube: TwinKube,
    private readonly clock: Clock,
  ) {}

  /** The machines, control plane (those with a kube-apiserver manifest) first, each in name order. */
  private machines(): { controlPlane: string[]; workers: string[] } {
    const all = readdirSync(this.nodesDir).sort();
    const isControlPlane = (m: string) =>
      existsSync(join(this.nodesDir, m, 'etc/kubernetes/manifests/kube-apiserver.yaml'));
    return { controlPlane: all.filter(isControlPlane), workers: all.filter((m) => !isControlPlane(m)) };
  }

  /** On each control-plane machine in turn: every edit to its manifests, then wait for those pods to run them. */
  async editStaticPods(edits: readonly StaticPodEdit[]): Promise<string> {
    const { controlPlane } = this.machines();
    let files = 0;
    for (const machine of controlPlane) {
      const changed: StaticPodEdit[] = [];
      for (const edit of edits) {
        const path = join(this.nodesDir, machine, edit.path);
        // The twin runs no kube-scheduler: a machine without the file has nothing to edit.
        if (!existsSync(path)) continue;
        const before = readFileSync(path, 'utf8');
        const after = editManifest(before, edit, path);
        if (after === before) continue;
        writeFileSync(path, after);
        changed.push(edit);
        files++;
      }
      if (changed.length > 0)
        await this.waitFor(machine, () => changed.every((e) => this.podRuns(machine, e)));
    }
    return `${edits.map((e) => `${e.path}: ${describeEdit(e)}`).join(', ')} on ${controlPlane.length} control-plane machine(s), one at a time (${files} file(s) changed)${this.lateNote()}`;
  }

  /** On every machine in turn, control plane first: the flags and the package, then wait for the node. */
  async kubelets(edit: KubeletEdit): Promise<string> {
    const { controlPlane, workers } = this.machines();
    for (const machine of [...controlPlane, ...workers]) {
      const flagsPath = join(this.nodesDir, machine, edit.flagsFile);
      if (existsSync(flagsPath)) {
        const before = readFileSync(flagsPath, 'utf8');
        const args = flagEdits(parseKubeletFlags(before), edit).join(' ');
        const after = /KUBELET_KUBEADM_ARGS\s*=/.test(before)
          ? before.replace(/KUBELET_KUBEADM_ARGS\s*=\s*("[^"]*"|.*$)/m, `KUBELET_KUBEADM_ARGS="${args}"`)
          : `${before}KUBELET_KUBEADM_ARGS="${args}"\n`;
        if (after !== before) writeFileSync(flagsPath, after);
      }
      if (edit.install) {
        installKubelet(this.nodesDir, machine, edit.install.version);
        const version = edit.install.version;
        await this.waitFor(machine, () => this.nodeRuns(machine, version));
      }
    }
    return `kubelet on ${controlPlane.length + workers.length} machine(s), one at a time: ${describeEdit(edit)} (${edit.flagsFile}), systemctl restart kubelet${this.lateNote()}`;
  }

  /** `kubectl -n kube-system edit configmap kubeadm-config`: the ClusterConfiguration's fields. */
  editKubeadmConfig(edit: ConfigEdit): string {
    const { namespace, name, key } = KUBEADM_CONFIG;
    const stored = this.kube.mutate(R.configmaps, namespace, name, (draft) => {
      const data = isRecord(draft.data) ? draft.data : {};
      const doc = parseDocument(String(data[key] ?? ''));
      for (const field of edit.fields) setField(doc, field.path.split('.'), field.value);
      draft.data = { ...data, [key]: doc.toString() };
      return draft;
    });
    if (!stored) return `kubeadm-config: not found in ${namespace}, nothing to edit`;
    const fields = edit.fields.map((f) => (f.value === undefined ? `no ${f.path}` : `${f.path}: ${f.value}`));
    return `kubeadm-config: ${fields.join(', ')}`;
  }

  private podRuns(machine: string, edit: StaticPodEdit): boolean {
    const pod = this.kube.get(R.pods, 'kube-system', staticPodName(edit.container, machine));
    const spec = isRecord(pod?.spec) ? pod.spec : {};
    const container = (Array.isArray(spec.containers) ? spec.containers.filter(isRecord) : []).find(
      (c) => c.name === edit.container,
    );
    if (!container) return false;
    const args = [...stringsOf(container.command), ...stringsOf(container.args)];
    const flagsMatch =
      Object.entries(edit.setFlags ?? {}).every(([n, v]) => args.includes(`--${n}=${v}`)) &&
      (edit.removeFlags ?? []).every((n) => !args.some((a) => a === `--${n}` || a.startsWith(`--${n}=`)));
    return (!edit.image || container.image === edit.image) && flagsMatch && running(pod);
  }

  private nodeRuns(machine: string, version: string): boolean {
    const node = this.kube.get(R.nodes, undefined, machine);
    const status = isRecord(node?.status) ? node.status : {};
    const info = isRecord(status.nodeInfo) ? status.nodeInfo : {};
    return info.kubeletVersion === version && conditionTrue(status, 'Ready');
  }

  private async waitFor(machine: string, done: () => boolean): Promise<void> {
    const deadline = this.clock.now() + COMEBACK_MS;
    while (!done()) {
      if (this.clock.now() >= deadline) {
        this.late.push(machine);
        return;
      }
      await this.clock.sleep(LOOK_EVERY_MS);
    }
  }

  private lateNote(): string {
    if (this.late.length === 0) return '';
    const note = `; not back after ${COMEBACK_MS / 60_000} minutes, moved on: ${this.late.join(', ')}`;
    this.late.length = 0;
    return note;
  }
}

/** The manifest with one container's image and flags changed, the rest of the file as it was. */
function editManifest(text: string, edit: StaticPodEdit, path: string): string {
  const doc = parseDocument(text);
  const pod: unknown = doc.toJS();
  const containers =
    isRecord(pod) && isRecord(pod.spec) && Array.isArray(pod.spec.containers) ? pod.spec.containers : [];
  const index = containers.findIndex((c) => isRecord(c) && c.name === edit.container);
  if (index < 0) throw new InternalError(`${path} has no container ${edit.container}`);
  const container = containers[index] as Record<string, unknown>;
  if (edit.image) doc.setIn(['spec', 'containers', index, 'image'], edit.image);
  const command = stringsOf(container.command);
  const args = stringsOf(container.args);
  let newCommand = withoutFlags(command, edit.removeFlags ?? []);
  let newArgs = withoutFlags(args, edit.removeFlags ?? []);
  for (const [name, value] of Object.entries(edit.setFlags ?? {})) {
    // A flag stays where it is; a new one goes where the flags are (kubeadm's manifests: the command).
    const inCommand = newCommand.slice(1).some((a) => flagName(a) === name);
    if (inCommand || args.length === 0) newCommand = setFlag(newCommand, `--${name}=${value}`);
    else newArgs = setFlag(newArgs, `--${name}=${value}`);
  }
  if (newCommand.join('\n') !== command.join('\n'))
    doc.setIn(['spec', 'containers', index, 'command'], newCommand);
  if (newArgs.join('\n') !== args.join('\n')) doc.setIn(['spec', 'containers', index, 'args'], newArgs);
  return doc.toString();
}

/** Sets (or, without a value, removes) a ClusterConfiguration field; `extraArgs` may be a map or a list. */
function setField(doc: Document, path: readonly string[], value: string | undefined): void {
  const argsAt = path.indexOf('extraArgs');
  if (argsAt >= 0 && argsAt === path.length - 2) {
    const holder = path.slice(0, argsAt + 1);
    const name = path[path.length - 1]!;
    const args = doc.getIn(holder);
    // v1beta4 (kubeadm 1.31+): a list of {name, value}.
    if (isSeq(args)) {
      const items = (args.toJSON() as { name?: string; value?: string }[]).filter((a) => a.name !== name);
      doc.setIn(holder, value === undefined ? items : [...items, { name, value }]);
      return;
    }
    if (!isMap(args) && value === undefined) return;
  }
  if (value === undefined) doc.deleteIn(path);
  else doc.setIn(path, value);
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

function conditionTrue(status: Record<string, unknown>, type: string): boolean {
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isRecord) : [];
  return conditions.some((c) => c.type === type && c.status === 'True');
}

function running(pod: KubeObject | undefined): boolean {
  const status = isRecord(pod?.status) ? pod.status : {};
  return status.phase === 'Running' && conditionTrue(status, 'Ready');
}
