/**
 * Per-node command templates such as `ssh {node} sudo tee {path}`: split into arguments once (single and
 * double quotes group words; no shell is ever involved), then `{node}` and `{path}` are substituted per use.
 * Values are checked so a node name or path can never smuggle shell syntax into a remote shell (ssh joins
 * its arguments into one command line on the other side).
 */
import { InputError } from '../../errors/index.js';
import { redactSecrets } from '../redact.js';

export type TemplatePlaceholder = 'node' | 'path';

export interface CommandTemplate {
  readonly source: string;
  readonly words: readonly string[];
}

const NODE_NAME = /^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/;
const SAFE_PATH = /^\/[A-Za-z0-9._/-]+$/;

export function parseCommandTemplate(
  source: string,
  field: string,
  required: readonly TemplatePlaceholder[],
): CommandTemplate {
  const words: string[] = [];
  let current = '';
  let quote: '"' | "'" | undefined;
  let inWord = false;
  for (const ch of source) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (quote) throw bad(source, field, `an unclosed ${quote} quote`);
  if (inWord) words.push(current);
  if (words.length === 0) throw bad(source, field, 'no command');
  for (const p of required) {
    if (!words.some((w) => w.includes(`{${p}}`))) throw bad(source, field, `no {${p}} placeholder`);
  }
  const unknown = words.join(' ').match(/\{(?!node\}|path\})[^}]*\}/);
  if (unknown) throw bad(source, field, `an unknown placeholder ${unknown[0]}`);
  return { source, words };
}

export function renderCommand(
  template: CommandTemplate,
  values: Partial<Record<TemplatePlaceholder, string>>,
): string[] {
  if (values.node !== undefined && !NODE_NAME.test(values.node)) {
    throw new InputError(
      'UP-NODE-COMMAND-VALUE',
      `node name ${JSON.stringify(values.node)} is not safe to put in a command`,
      {
        location: { field: 'node', value: values.node },
        hint: 'node names must be DNS names (letters, digits, dots and dashes)',
      },
    );
  }
  if (values.path !== undefined && !SAFE_PATH.test(values.path)) {
    throw new InputError(
      'UP-NODE-COMMAND-VALUE',
      `path ${JSON.stringify(values.path)} is not safe to put in a command`,
      {
        location: { field: 'path', value: values.path },
        hint: 'paths must be absolute and use only letters, digits, dots, dashes, underscores and slashes',
      },
    );
  }
  return template.words.map((w) =>
    w.replace(/\{node\}/g, values.node ?? '{node}').replace(/\{path\}/g, values.path ?? '{path}'),
  );
}

function bad(source: string, field: string, what: string): InputError {
  return new InputError('UP-NODE-COMMAND', `the command template ${JSON.stringify(source)} has ${what}`, {
    location: { field, value: source },
    hint: `write it like 'ssh {node} sudo tee {path}' (the file content arrives on stdin)`,
  });
}

/** The command line as it may be shown (secrets redacted). */
export function describeCommand(file: string, args: readonly string[]): string {
  return redactSecrets([file, ...args].map((a) => (/[\s'"]/.test(a) ? JSON.stringify(a) : a)).join(' '));
}
