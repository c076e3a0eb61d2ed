import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LineCounter, isNode, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { InputError, fieldPath, valueAt, type ErrorLocation } from 'uproot';
import { scenarioSchema, type Scenario, type ScenarioInput } from './scenario-schema.js';
import { withSnapshotFields } from './from-snapshot.js';

/** The scenarios shipped with uproot: `<package>/scenarios/*.yaml` (the same path from src/ and dist/). */
export const BUILTIN_SCENARIO_DIR = fileURLToPath(new URL('../../scenarios/', import.meta.url));

export interface LoadedScenario {
  readonly scenario: Scenario;
  /** The file it came from (absolute), or undefined for an in-memory scenario. */
  readonly file: string | undefined;
  readonly builtin: boolean;
}

/** Names of the built-in scenarios, sorted. */
export function builtinScenarioNames(dir = BUILTIN_SCENARIO_DIR): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.slice(0, -'.yaml'.length))
    .sort();
}

/**
 * Resolves `NAME|FILE` the way `uproot sandbox up --scenario` does: a path (anything with a slash or a
 * .yaml/.yml suffix) is read relative to `cwd`; otherwise a built-in scenario of that name.
 */
export function loadScenario(
  ref: string,
  options: { cwd?: string; builtinDir?: string } = {},
): LoadedScenario {
  const looksLikePath = ref.includes('/') || ref.includes('\\') || /\.ya?ml$/i.test(ref);
  if (looksLikePath) {
    const file = isAbsolute(ref) ? ref : resolve(options.cwd ?? process.cwd(), ref);
    if (!existsSync(file)) {
      throw new InputError('UP-SCENARIO-NOT-FOUND', `scenario file ${ref} does not exist`, {
        location: { file: ref },
        hint: 'give the path of a scenario YAML file, or the name of a built-in scenario (see docs/sandbox.md)',
      });
    }
    return { scenario: parseScenarioText(readFileSync(file, 'utf8'), file), file, builtin: false };
  }
  const dir = options.builtinDir ?? BUILTIN_SCENARIO_DIR;
  const file = join(dir, `${ref}.yaml`);
  if (!existsSync(file)) {
    const names = builtinScenarioNames(dir);
    throw new InputError('UP-SCENARIO-NOT-FOUND', `there is no built-in scenario named "${ref}"`, {
      location: { field: '--scenario', value: ref },
      hint: `use one of: ${names.join(', ')}; or give the path of a scenario YAML file`,
    });
  }
  return { scenario: parseScenarioText(readFileSync(file, 'utf8'), file), file, builtin: true };
}

/** Validates a scenario given as data (tests, `startTwin`); errors name the field. */
export function parseScenario(input: ScenarioInput | unknown, file?: string): Scenario {
  const result = scenarioSchema.safeParse(input);
  if (!result.success) throw schemaError(result.error, input, file, undefined);
  return withSnapshotFields(result.data);
}

/** Parses scenario YAML; syntax and schema errors are located by file, line and field. */
export function parseScenarioText(text: string, file: string): Scenario {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const syntax = doc.errors[0];
  if (syntax) {
    const pos = lineCounter.linePos(syntax.pos[0]);
    throw new InputError('UP-SCENARIO-YAML', `${file} is not valid YAML: ${syntax.message.split('\n')[0]}`, {
      location: { file, line: pos.line, column: pos.col },
      hint: 'fix the YAML syntax at that line (indentation, quotes, brackets)',
    });
  }
  const input: unknown = doc.toJS();
  const result = scenarioSchema.safeParse(input ?? {});
  if (!result.success) throw schemaError(result.error, input, file, { doc, lineCounter });
  return withSnapshotFields(result.data);
}

function schemaError(
  error: z.ZodError,
  input: unknown,
  file: string | undefined,
  yaml: { doc: Document.Parsed; lineCounter: LineCounter } | undefined,
): InputError {
  const issue = error.issues[0]!;
  const unknownKey = issue.code === 'unrecognized_keys' ? (issue as { keys: string[] }).keys[0] : undefined;
  const path = unknownKey === undefined ? issue.path : [...issue.path, unknownKey];
  const field = fieldPath(path);
  const value = unknownKey ?? valueAt(input, issue.path);
  const location: ErrorLocation = {
    ...(file ? { file } : {}),
    field: field || '(top level)',
    ...(value === undefined || typeof value === 'object' ? {} : { value }),
    ...(yaml ? lineOf(yaml.doc, yaml.lineCounter, path) : {}),
  };
  const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more problem(s))` : '';
  return new InputError(
    'UP-SCENARIO-INVALID',
    `scenario${file ? ` ${file}` : ''}: ${field || '(top level)'}: ${unknownKey ? 'unknown field' : issue.message}${more}`,
    {
      location,
      hint: unknownKey
        ? `remove or correct "${unknownKey}"; the fields a scenario accepts are listed in docs/sandbox.md`
        : 'correct the value as docs/sandbox.md describes, then run the command again',
    },
  );
}

/** The line of the deepest existing node on `path` (an unknown key points at its own line). */
function lineOf(
  doc: Document.Parsed,
  lineCounter: LineCounter,
  path: readonly PropertyKey[],
): { line?: number; column?: number } {
  const keys = path.map((p) => (typeof p === 'symbol' ? String(p) : p));
  for (let depth = keys.length; depth >= 0; depth--) {
    const sub = keys.slice(0, depth);
    const node: unknown = depth === 0 ? doc.contents : doc.getIn(sub, true);
    if (depth === keys.length && depth > 0) {
      // An unknown key has no value node to point at in some shapes; find the key itself in its parent map.
      const parent: unknown = depth === 1 ? doc.contents : doc.getIn(keys.slice(0, depth - 1), true);
      const pair = findPair(parent, keys[depth - 1]);
      if (pair) {
        const pos = lineCounter.linePos(pair);
        return { line: pos.line, column: pos.col };
      }
    }
    if (isNode(node) && node.range) {
      const pos = lineCounter.linePos(node.range[0]);
      return { line: pos.line, column: pos.col };
    }
  }
  return {};
}

function findPair(parent: unknown, key: string | number | undefined): number | undefined {
  if (key === undefined || typeof parent !== 'object' || parent === null) return undefined;
  const items = (parent as { items?: unknown[] }).items;
  if (!Array.isArray(items)) return undefined;
  for (const item of items) {
    const k = (item as { key?: { value?: unknown; range?: [number, number, number] } }).key;
    if (k && k.value === key && k.range) return k.range[0];
  }
  return undefined;
}
