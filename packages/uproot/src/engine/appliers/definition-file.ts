/**
 * `edit-cluster-definition` on a file. RKE: the step edits cluster.yml (comments kept, the previous version
 * kept beside it as cluster.yml.uproot-<step>-<timestamp>.bak, atomic replace) and then runs the
 * distribution's rollout command (`rke up --config cluster.yml`) in the file's directory, which rolls the
 * change out. `rke up` is declarative, so running it again after a crash is safe; the change is recorded as
 * done only once the rollout succeeded.
 */
import { createHash } from 'node:crypto';
import { basename, dirname, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import type { Change } from '../../core/model/plan-types.js';
import type { Clock } from '../../clock/index.js';
import { ExitCode, InputError, InternalError, UprootError } from '../../errors/index.js';
import type { Backup } from '../journal/journal-schema.js';
import { diffFields, invertFields } from '../object-diff/field-diff.js';
import { isRecord, type JsonRecord } from '../object-diff/json.js';
import type { UndoOutcome } from '../rollback/run-rollback.js';
import type { CommandRunner, FileStore } from '../ports.js';
import type { ChangeOutcome } from '../run-plan.js';
import type {
  ApplyContext,
  ChangeApplier,
  StepTextTransform,
  StepTransform,
  UndoContext,
} from './applier-types.js';
import { describeCommand } from './command-template.js';
import { transformDefinition } from './definition-transform.js';
import { editDocument } from './yaml-document-edit.js';

type EditFile = Extract<Change, { type: 'edit-cluster-definition' }>;

/**
 * The command that rolls a cluster file out (the distribution's fact; RKE: `rke up --config {file}`), run in
 * the file's directory with `{file}` replaced by the file's name.
 */
export interface RolloutCommand {
  /** The program (--rke-binary overrides RKE's `rke`). */
  readonly binary: string;
  readonly args: readonly string[];
}

export interface FileDefinitionDeps {
  readonly cwd: string;
  readonly clock: Clock;
  readonly files: FileStore;
  readonly runner: CommandRunner;
  readonly rollout: RolloutCommand;
  readonly timeoutMs: number;
  readonly transform?: StepTransform;
  /** Preferred: the distribution's transformation of the file's text, which keeps every untouched byte. */
  readonly transformText?: StepTextTransform;
}

function pathOf(change: EditFile, cwd: string): string {
  if (!('file' in change.target)) {
    throw new InternalError(
      'an object target reached the RKE file applier; this should not happen, please report it',
    );
  }
  return resolve(cwd, change.target.file);
}

function readYaml(path: string, text: string): { doc: ReturnType<typeof parseDocument>; value: JsonRecord } {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    throw new InputError(
      'UP-RKE-CLUSTER-FILE',
      `${path} is not valid YAML: ${doc.errors[0]!.message.split('\n')[0]}`,
      {
        location: { file: path },
        hint: 'fix the file (or restore it from its .bak copy), then run the command again',
      },
    );
  }
  const value: unknown = doc.toJS();
  return { doc, value: isRecord(value) ? value : {} };
}

export function fileDefinitionApplier(deps: FileDefinitionDeps): ChangeApplier<EditFile> {
  const runRkeUp = async (path: string): Promise<string> => {
    const args = deps.rollout.args.map((a) => a.replace(/\{file\}/g, basename(path)));
    const binary = deps.rollout.binary;
    const result = await deps.runner.run({
      file: binary,
      args,
      cwd: dirname(path),
      timeoutMs: deps.timeoutMs,
    });
    const command = describeCommand(binary, args);
    if (result.type === 'exited' && result.exitCode === 0) return `${command} succeeded`;
    const output =
      result.type === 'not-started'
        ? result.message
        : `${result.stderr}\n${result.stdout}`.trim().split('\n').slice(-15).join('\n');
    throw new UprootError(
      'UP-RKE-UP-FAILED',
      `${command} ${result.type === 'exited' ? `exited with ${result.exitCode}` : result.type === 'killed' ? `was stopped (${result.reason})` : 'could not start'}:\n${output}`,
      {
        source: 'environment',
        exitCode: ExitCode.failed,
        hint:
          result.type === 'not-started'
            ? `check --rke-binary (${binary})`
            : 'fix what rke reports, then run `uproot migrate --resume` (cluster.yml already holds the change; rke up runs again)',
      },
    );
  };
  const transformFor = (change: EditFile, ctx: ApplyContext) => (value: JsonRecord) =>
    transformDefinition(deps.transform, ctx.step.id, value, change);

  return {
    capture: async (change): Promise<Backup> => {
      const path = pathOf(change, deps.cwd);
      const content = deps.files.read(path);
      if (content === undefined) {
        throw new InputError('UP-CLUSTER-FILE-UNREADABLE', `cannot read ${path}: it does not exist`, {
          location: { file: path },
          hint: 'pass the cluster.yml rke manages with --cluster-file',
        });
      }
      return { type: 'file', path, content };
    },
    apply: async (change, backup, ctx): Promise<ChangeOutcome> => {
      const path = pathOf(change, deps.cwd);
      const text = deps.files.read(path) ?? '';
      const { doc, value } = readYaml(path, text);
      const ownText = deps.transformText?.(ctx.step.id, text, change);
      const next = ownText !== undefined ? readYaml(path, ownText).value : transformFor(change, ctx)(value);
      const content = ownText ?? (editDocument(doc, value, next) > 0 ? doc.toString() : text);
      const write = deps.files.writeWithBackup(path, content, ctx.step.id, deps.clock.now());
      const rkeUp = await runRkeUp(path);
      const before = backup?.type === 'file' ? readYaml(path, backup.content).value : value;
      return {
        type: 'done',
        record: {
          outcome: write.changed ? 'changed' : 'unchanged',
          fields: diffFields(before, next, { arrays: 'atomic' }),
          writtenSha256: sha256(content),
          ...(write.backupPath ? { backupFile: write.backupPath } : {}),
          detail: `${write.changed ? `wrote ${path}` : `${path} already as planned`}; ${rkeUp}`,
        },
      };
    },
    undo: async (change, backup, ctx: UndoContext): Promise<UndoOutcome> => {
      const path = pathOf(change, deps.cwd);
      const text = deps.files.read(path) ?? '';
      let content: string;
      if (backup?.type === 'file' && ctx.record?.writtenSha256 === sha256(text)) {
        content = backup.content; // untouched since: restore the user's exact file
      } else {
        const { doc, value } = readYaml(path, text);
        const fields =
          ctx.record?.fields ??
          (backup?.type === 'file'
            ? (() => {
                const before = readYaml(path, backup.content).value;
                return diffFields(before, transformFor(change, ctx)(before), { arrays: 'atomic' });
              })()
            : []);
        const inverse = invertFields(value, fields, { force: ctx.force });
        if (inverse.conflicts.length > 0 && !ctx.force) {
          return { type: 'conflict', conflicts: inverse.conflicts.map((c) => `${path}: ${c}`) };
        }
        editDocument(doc, value, inverse.value);
        content = doc.toString();
      }
      const write = deps.files.writeWithBackup(path, content, `undo-${ctx.step.id}`, deps.clock.now());
      const rkeUp = await runRkeUp(path);
      return {
        type: write.changed ? 'undone' : 'nothing-to-undo',
        detail: `${write.changed ? `restored ${path}` : `${path} already as before`}; ${rkeUp}`,
      };
    },
  };
}

/** What a written file's record carries, to tell later whether someone edited it since. */
export function sha256(content: string): string {
  return createHash('sha256').update(content).digest('hex');
}
