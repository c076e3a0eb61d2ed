/**
 * Reads `export NAME=value` files (what `uproot sandbox up` writes as aws.env, and what a person writes to give
 * one cluster its own AWS profile or keys): one assignment a line, `#` comments, values bare, single-quoted
 * (POSIX, `'\''` for a quote) or double-quoted. Values are never echoed in errors.
 */
import { readFileSync } from 'node:fs';
import { InputError } from '../../errors/index.js';

const LINE = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/;

export function parseEnvText(text: string, file: string): Record<string, string> {
  const out: Record<string, string> = {};
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = LINE.exec(line);
    const value = m ? unquote(m[2]!) : undefined;
    if (!m || value === undefined) {
      throw new InputError('UP-ENV-FILE', `${file}:${i + 1} is not a NAME=value line`, {
        location: { file, line: i + 1 },
        hint: "write `export NAME=value` (quote values with spaces: NAME='a value')",
      });
    }
    out[m[1]!] = value;
  });
  return out;
}

function unquote(value: string): string | undefined {
  if (value.startsWith("'")) {
    // 'a'\''b' → a'b
    const parts = /^'([^']*)'((?:\\''[^']*')*)$/.exec(value);
    if (!parts) return undefined;
    return value.slice(1, -1).split(`'\\''`).join("'");
  }
  if (value.startsWith('"')) {
    if (!value.endsWith('"') || value.length < 2) return undefined;
    return value.slice(1, -1).replace(/\\(["\\$`])/g, '$1');
  }
  return /\s/.test(value) ? undefined : value;
}

export function readEnvFile(path: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new InputError(
      'UP-ENV-FILE',
      `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? ''}`,
      {
        location: { file: path },
        hint: 'check the path',
      },
    );
  }
  return parseEnvText(text, path);
}
