import { Option } from 'commander';
import { stringify } from 'yaml';
import { InputError } from '../errors/index.js';

export type OutputFormat = 'text' | 'json' | 'yaml';

export function parseOutputFormat(
  value: string,
  allowed: readonly OutputFormat[] = ['text', 'json', 'yaml'],
): OutputFormat {
  if ((allowed as readonly string[]).includes(value)) return value as OutputFormat;
  throw new InputError('UP-CLI-OUTPUT', `unknown output format "${value}"`, {
    location: { field: '-o/--output', value },
    hint: `use one of: ${allowed.join(', ')}`,
  });
}

/** Serialises a document for -o json / -o yaml; text rendering is each command's own. */
export function renderDocument(doc: unknown, format: 'json' | 'yaml'): string {
  return format === 'json' ? `${JSON.stringify(doc, null, 2)}\n` : stringify(doc, { lineWidth: 0 });
}

/**
 * `-o, --output`, as kubectl has it: every command that prints a result takes text, json or yaml (`extra` adds
 * command-specific forms, e.g. report's html). One definition, so the flag reads the same everywhere.
 */
export function outputOption(extra: readonly string[] = [], note = ''): Option {
  const forms = ['text', 'json', 'yaml', ...extra];
  const list = `${forms.slice(0, -1).join(', ')} or ${forms.at(-1)!}`;
  return new Option('-o, --output <format>', `${list}${note ? ` (${note})` : ''}`).default('text');
}

/** A result document for -o json / -o yaml; with --watch, one per line (json) or per `---` document (yaml). */
export function renderResult(doc: unknown, format: 'json' | 'yaml', stream = false): string {
  if (!stream) return renderDocument(doc, format);
  return format === 'json' ? `${JSON.stringify(doc)}\n` : `---\n${renderDocument(doc, 'yaml')}`;
}
