/**
 * Whether `uproot migrate` may go on with the journal it found, decided before the migration lock is taken:
 * a refusal (exit 2) must write nothing, not even the lock's Lease (issue 25). Pure: the caller reads the
 * journal in the cluster and the local copies under the state directory.
 */
import type { Journal, JournalLocation } from '../engine/journal/journal-schema.js';
import { journalPhase } from '../engine/journal/journal-transitions.js';
import { InputError } from '../errors/index.js';
import type { TargetFlags } from './targets.js';

export interface ResumeInput {
  /** --resume, or --auto-resume that found an unfinished journal. */
  readonly resume: boolean;
  readonly autoResume: boolean;
  readonly flags: TargetFlags;
  readonly targetVersion?: string;
  /** Where this run looks for the journal (from its flags). */
  readonly location: JournalLocation;
  /** The journal found there. */
  readonly existing: Journal | undefined;
  /** The local copies under the state directory (`.uproot/<cluster>/journal.json`), with their paths. */
  readonly localCopies: readonly { readonly path: string; readonly journal: Journal }[];
}

/** The refusal for this run, or undefined when it may go on (start, resume, or find it already complete). */
export function resumeRefusal(input: ResumeInput): InputError | undefined {
  const { existing } = input;
  if (!existing) return missingJournal(input);
  const phase = journalPhase(existing);
  if (input.resume && phase.type === 'rolled-back') {
    return new InputError(
      'UP-MIGRATE-NOTHING-TO-RESUME',
      'the journaled migration was rolled back; there is nothing to resume',
      {
        location: { field: '--resume' },
        hint: `start a new migration with \`${migrateCommand(input.flags, input.targetVersion)}\``,
      },
    );
  }
  if (input.resume && phase.type === 'rolling-back') {
    return new InputError('UP-MIGRATE-ROLLING-BACK', 'a rollback of this migration is in progress', {
      location: { field: '--resume' },
      hint: `finish it with \`${command('rollback', input.flags)} --yes\` first`,
    });
  }
  if (!input.resume && (phase.type === 'in-progress' || phase.type === 'rolling-back')) {
    return new InputError(
      'UP-MIGRATE-IN-PROGRESS',
      `a migration of ${existing.cluster.name} is already in progress (${phase.type === 'in-progress' ? `step ${phase.step} is ${phase.state}` : phase.type})`,
      {
        location: { field: '--resume' },
        hint: `continue it with \`${command('migrate', input.flags)} --resume\`, or undo it with \`${command('rollback', input.flags)}\`; see \`${command('status', input.flags)}\``,
      },
    );
  }
  return undefined;
}

/**
 * No journal where this run looks. A local copy that says it lives elsewhere names the flags that reach it
 * (under --resume and --auto-resume alike: starting over there would begin a second migration). Otherwise
 * --auto-resume starts the migration, and --resume says the exact command that starts it: a run killed
 * before it wrote its first journal leaves none.
 */
function missingJournal(input: ResumeInput): InputError | undefined {
  if (!input.resume && !input.autoResume) return undefined;
  const elsewhere = input.localCopies.find((c) => !sameLocation(c.journal.location, input.location));
  if (elsewhere) {
    const flags = flagsFor(elsewhere.journal.location, input.flags);
    return new InputError(
      'UP-MIGRATE-JOURNAL-ELSEWHERE',
      `there is no migration journal at ${describeLocation(input.location)}, but the local copy ${elsewhere.path} says the migration of ${elsewhere.journal.cluster.name} keeps it at ${describeLocation(elsewhere.journal.location)}`,
      {
        location: { field: flags.needsRancherContext ? '--rancher-context' : '--cluster' },
        hint: `resume it with the flags of the run that wrote it: \`${command('migrate', flags.flags)} --resume\`${flags.needsRancherContext ? ` (--rancher-context: the kubeconfig context of Rancher's local cluster)` : ''}`,
      },
    );
  }
  if (!input.resume) return undefined;
  const local = input.localCopies.find((c) => sameLocation(c.journal.location, input.location));
  return new InputError(
    'UP-MIGRATE-NOTHING-TO-RESUME',
    local
      ? `there is no migration journal at ${describeLocation(input.location)} (the local copy ${local.path} has one: check --context, or restore it from that copy)`
      : `there is no migration journal at ${describeLocation(input.location)} to resume: no run wrote one yet (a run stopped before its first step leaves none)`,
    {
      location: { field: '--resume' },
      hint: `start the migration with \`${migrateCommand(input.flags, input.targetVersion)}\`${input.targetVersion ? '' : ' (add the --target-version the first run had, if it had one)'}, or pass --auto-resume, which starts it when there is nothing to resume`,
    },
  );
}

function sameLocation(a: JournalLocation, b: JournalLocation): boolean {
  return a.api === b.api && a.namespace === b.namespace && a.name === b.name;
}

function describeLocation(location: JournalLocation): string {
  return location.api === 'management'
    ? `ConfigMap ${location.namespace}/${location.name} in Rancher's local cluster`
    : `ConfigMap ${location.namespace}/${location.name} in the cluster`;
}

/** The target flags that reach `location`, from the ones given (the Rancher ones added or dropped). */
function flagsFor(
  location: JournalLocation,
  given: TargetFlags,
): { flags: TargetFlags; needsRancherContext: boolean } {
  if (location.api === 'management') {
    const cluster = `${location.namespace}/${location.name.replace(/^uproot-migration-/, '')}`;
    const needsRancherContext = !given.rancherContext && !given.rancherInCluster;
    return {
      flags: { ...given, cluster, ...(needsRancherContext ? { rancherContext: '<rancher-context>' } : {}) },
      needsRancherContext,
    };
  }
  const { rancherContext: _r, cluster: _c, rancherInCluster: _i, ...rest } = given;
  return { flags: rest, needsRancherContext: false };
}

/** `uproot migrate` with the target flags given, --target-version and --yes: the command that starts a run. */
export function migrateCommand(flags: TargetFlags, targetVersion: string | undefined): string {
  return `${command('migrate', flags)}${targetVersion ? ` --target-version ${quote(targetVersion)}` : ''} --yes`;
}

/** `uproot <verb>` with the target flags, in the order `uproot --help` lists them. */
export function command(verb: string, flags: TargetFlags): string {
  const parts = [`uproot ${verb}`];
  const add = (flag: string, value: string | undefined): void => {
    if (value !== undefined) parts.push(`${flag} ${quote(value)}`);
  };
  add('--kubeconfig', flags.kubeconfig);
  add('--context', flags.context);
  add('--rancher-context', flags.rancherContext);
  if (flags.rancherInCluster) parts.push('--rancher-in-cluster');
  add('--cluster', flags.cluster);
  if (flags.downstreamFromRancher) parts.push('--downstream-from-rancher');
  if (verb === 'migrate' || verb === 'rollback') add('--cluster-file', flags.clusterFile);
  return parts.join(' ');
}

/** Shell-safe: plain words as they are, anything else in single quotes; `<placeholder>` left to read. */
function quote(value: string): string {
  if (/^[A-Za-z0-9_./:@+=,-]+$/.test(value) || /^<[a-z-]+>$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
