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
