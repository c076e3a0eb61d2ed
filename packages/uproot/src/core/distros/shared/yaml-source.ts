/**
 * Reading users' YAML: every document of a file, with errors located by file, line and column, and a way to
 * turn a field path back into a line for messages. The parsed Documents are kept so edits can keep comments.
 */
import { LineCounter, isNode, parseAllDocuments, type Document } from 'yaml';
import { InputError, UprootError, type ErrorLocation } from '../../../errors/index.js';
import { fieldPath } from '../../model/json-value.js';

export interface SourceFile {
  /** As the user named it (used in messages and diffs). */
  readonly path: string;
  readonly text: string;
}

export interface ParsedYamlFile {
  readonly file: SourceFile;
  readonly docs: readonly Document.Parsed[];
  /** Each document as plain JSON (null for an empty document). */
  readonly values: readonly unknown[];
  readonly lineCounter: LineCounter;
}

/** RKE2 and RKE read one cluster file; more or none is bad input (`code` names the distribution's error). */
export function singleFile(
  files: readonly SourceFile[],
  code: string,
  refusal: { readonly distro: string; readonly hint: string },
): SourceFile {
  const [file, ...rest] = files;
  if (!file || rest.length > 0) {
    throw new InputError(code, `an ${refusal.distro} plan reads one cluster file, got ${files.length}`, {
      location: { field: '--cluster-file', value: files.map((f) => f.path).join(', ') },
      hint: refusal.hint,
    });
  }
  return file;
}

/** Parses every document of a YAML file; a syntax error becomes an InputError at its line and column. */
export function parseYamlFile(file: SourceFile): ParsedYamlFile {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(file.text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (!Array.isArray(docs)) {
    // An empty stream parses to an EmptyStream object.
    return { file, docs: [], values: [], lineCounter };
  }
  for (const doc of docs) {
    const error = doc.errors[0];
    if (error) {
      const pos = lineCounter.linePos(error.pos[0]);
      throw new InputError('UP-PLAN-YAML', `${file.path} is not valid YAML: ${firstLine(error.message)}`, {
        location: { file: file.path, line: pos.line, column: pos.col },
        hint: 'fix the YAML syntax at that line (indentation, quotes, brackets), then run the command again',
      });
    }
  }
  const values = docs.map((doc, index) => toPlainJson(doc, file, index, lineCounter));
  return { file, docs, values, lineCounter };
}

function toPlainJson(
  doc: Document.Parsed,
  file: SourceFile,
  index: number,
  lineCounter: LineCounter,
): unknown {
  try {
    const js: unknown = doc.toJS({ maxAliasCount: 1000 });
    // A JSON round trip turns what YAML has and JSON has not (Infinity, Maps) into plain data.
    return js === undefined ? null : (JSON.parse(JSON.stringify(js, jsonReplacer)) as unknown);
  } catch (error) {
    const pos = lineCounter.linePos(doc.range[0]);
    throw new InputError(
      'UP-PLAN-YAML',
      `${file.path}: document ${index + 1} cannot be read as plain data: ${error instanceof Error ? firstLine(error.message) : String(error)}`,
      {
        location: { file: file.path, line: pos.line, column: pos.col },
        hint: 'remove YAML aliases, custom tags and non-scalar keys from the cluster definition',
        cause: error,
      },
    );
  }
}

function jsonReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Map) return Object.fromEntries([...value.entries()].map(([k, v]) => [String(k), v]));
  if (value instanceof Set) return [...value];
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  return value;
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}

/** Where a field of a document is: the line and column of its value (or of the nearest existing parent). */
export function locate(
  parsed: ParsedYamlFile,
  docIndex: number,
  path: readonly (string | number)[],
  value?: unknown,
): ErrorLocation {
  const doc = parsed.docs[docIndex];
  const field = fieldPath(path);
  const base: ErrorLocation = { file: parsed.file.path, field, ...(value === undefined ? {} : { value }) };
  if (!doc) return base;
  for (let depth = path.length; depth >= 0; depth--) {
    const node: unknown = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
    if (isNode(node) && node.range) {
      const pos = parsed.lineCounter.linePos(node.range[0]);
      return { ...base, line: pos.line, column: pos.col };
    }
  }
  return base;
}

/** An InputError about a field of a parsed file, located at its line. */
export function fieldError(
  code: string,
  message: string,
  parsed: ParsedYamlFile,
  docIndex: number,
  path: readonly (string | number)[],
  options: { value?: unknown; hint: string },
): InputError {
  return new InputError(code, message, {
    location: locate(parsed, docIndex, path, printable(options.value)),
    hint: options.hint,
  });
}

/** Values in messages stay short: long strings and structures are abbreviated. */
export function printable(value: unknown): unknown {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value.length > 80 ? `${value.slice(0, 77)}...` : value;
  if (typeof value === 'object' && value !== null) {
    const text = JSON.stringify(value);
    return text.length > 80 ? `${text.slice(0, 77)}...` : value;
  }
  return value;
}

/** Re-throws an InputError raised without a file (e.g. a version parser) with this file's location. */
export function withFileLocation<T>(
  parsed: ParsedYamlFile,
  docIndex: number,
  path: readonly (string | number)[],
  fn: () => T,
): T {
  try {
    return fn();
  } catch (error) {
    if (UprootError.is(error) && error.source === 'user' && !error.location?.file) {
      throw new InputError(error.code, `${parsed.file.path}: ${error.message}`, {
        location: {
          ...locate(parsed, docIndex, path),
          ...(error.location?.value === undefined ? {} : { value: error.location.value }),
        },
        ...(error.hint ? { hint: error.hint } : {}),
        cause: error,
      });
    }
    throw error;
  }
}
