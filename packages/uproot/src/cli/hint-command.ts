/**
 * The one place a printed next step (`Continue with …`, `Next: …`, a fix that says `uproot migrate --resume`)
 * becomes a command that works as printed: the program's own name (`uproot` or `kubectl uproot`) and the flags
 * the user typed to reach this cluster (--kubeconfig, --context, --rancher-context, --cluster, kubeadm's node
 * commands, --state-dir, ...), each quoted for a POSIX shell, limited to the flags the hinted command takes.
 */
import { Command, type Option } from 'commander';
import { addExecutionOptions, addTargetOptions } from './command-options.js';

/** One flag as the user gave it: `--context` with its value, or a switch (`--rancher-in-cluster`). */
export interface GivenFlag {
  readonly flag: string;
  readonly value?: string | readonly string[];
}

/** Builds the hint commands of one run. */
export interface HintCommands {
  /** `uproot migrate --resume --rancher-context rancher --cluster prod`: `command` is the subcommand and its own words. */
  command(command: string): string;
  /** Every backticked `uproot <command> …` in `text` (a fix from the engine, a journal's note) made runnable. */
  runnable(text: string): string;
}

const longFlag = (o: Option): string | undefined => o.long ?? undefined;

const flagsOf = (cmd: Command): string[] =>
  cmd.options.map(longFlag).filter((f): f is string => f !== undefined);

/** Flags a run may need again; never --output, --yes, --dry-run or per-run choices. */
const carried = (flags: readonly string[]): string[] =>
  flags.filter((f) => !['--output', '--manual-done'].includes(f));

/** The flags each hinted command takes, from the same option builders the commands use (one home). */
const ACCEPTS: Readonly<Record<string, readonly string[]>> = (() => {
  const target = flagsOf(addTargetOptions(new Command()));
  const targetNoFile = flagsOf(addTargetOptions(new Command(), false));
  const execution = carried(flagsOf(addExecutionOptions(new Command())));
  return {
    migrate: [...target, ...execution],
    rollback: [...target, ...execution],
    verify: [...targetNoFile, '--region'],
    status: [...targetNoFile, '--state-dir'],
    preflight: ['--kubeconfig', '--context', '--rancher-context', '--cluster', '--cluster-file', '--region'],
    report: ['--state-dir'],
  };
})();

/** A word as a POSIX shell reads it back unchanged: bare when safe, else in single quotes. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

function render(given: GivenFlag): string[] {
  if (given.value === undefined) return [given.flag];
  const values = typeof given.value === 'string' ? [given.value] : given.value;
  return values.flatMap((v) => [given.flag, shellQuote(v)]);
}

/**
 * `program` is the name the user ran (`uproot`, `kubectl uproot`); `given` the flags they typed, in order.
 * A hint for a command that already names its target (`uproot plan --cluster-file …`) is left as written.
 */
export function hintCommands(program: string, given: readonly GivenFlag[]): HintCommands {
  const command = (words: string): string => {
    const sub = words.split(' ')[0] ?? '';
    const accepts = ACCEPTS[sub] ?? [];
    const already = new Set(words.split(' ').filter((w) => w.startsWith('--')));
    const extra = given.filter((g) => accepts.includes(g.flag) && !already.has(g.flag)).flatMap(render);
    return [program, words, ...extra].join(' ');
  };
  return {
    command,
    runnable: (text) =>
      text.replace(/`uproot ([a-z][a-z-]*(?: [^`]*)?)`/g, (whole, words: string) =>
        ACCEPTS[words.split(' ')[0] ?? ''] ? `\`${command(words)}\`` : whole.replace('uproot', program),
      ),
  };
}

/** The flags of `cmd` the user typed (or set through the environment), not those left at their default. */
export function givenFlags(cmd: Command): GivenFlag[] {
  const out: GivenFlag[] = [];
  for (const option of cmd.options) {
    const key = option.attributeName();
    const source = cmd.getOptionValueSource(key);
    if ((source !== 'cli' && source !== 'env') || !option.long) continue;
    const value: unknown = cmd.getOptionValue(key);
    if (value === true) out.push({ flag: option.long });
    else if (typeof value === 'string') out.push({ flag: option.long, value });
    else if (Array.isArray(value)) out.push({ flag: option.long, value: value.map(String) });
  }
  return out;
}
