import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type YAMLMap } from 'yaml';
import { InputError } from '../../errors/index.js';
import { atLeast, type KubernetesVersion } from '../model/kubernetes-version.js';
import {
  LEADER_MIGRATION_GROUP,
  LEADER_MIGRATION_KIND,
  LEADER_MIGRATION_VERSIONS,
  type ControllerLeader,
  type LeaderMigrationApiVersion,
  type LeaderMigrationConfiguration,
} from '../../election/model/index.js';

/** A problem found while reading a configuration, located in the file. */
export interface ConfigIssue {
  readonly severity: 'error' | 'warning';
  /** Stable id, e.g. `strict-unknown-field`, `leader-name-required`. */
  readonly code: string;
  /** The message, in upstream's words where upstream has one. */
  readonly message: string;
  readonly field?: string;
  readonly line?: number;
  readonly column?: number;
  readonly hint?: string;
}

export interface DecodedLeaderMigration {
  readonly apiVersion: LeaderMigrationApiVersion;
  readonly config: LeaderMigrationConfiguration;
  /** Strict-decoding errors (>= 1.32) or the same findings as warnings (older versions dropped them silently). */
  readonly issues: readonly ConfigIssue[];
  /** Where each field path starts in the file, for locating validation errors. */
  locate(field: string): { line: number; column: number } | undefined;
}

export interface DecodeOptions {
  readonly file?: string;
  /** The manager version that will read the file; strict decoding applies from 1.32. Default: strict. */
  readonly kubernetesVersion?: KubernetesVersion;
}

const TOP_FIELDS: Record<LeaderMigrationApiVersion, readonly string[]> = {
  v1: ['apiVersion', 'kind', 'leaderName', 'controllerLeaders'],
  v1beta1: ['apiVersion', 'kind', 'leaderName', 'resourceLock', 'controllerLeaders'],
  v1alpha1: ['apiVersion', 'kind', 'leaderName', 'resourceLock', 'controllerLeaders'],
};
const LEADER_FIELDS = ['name', 'component'];

/**
 * Reads a LeaderMigrationConfiguration from YAML or JSON the way the controller managers do
 * (apimachinery's UniversalDecoder; strict on unknown and duplicate fields from 1.32).
 * Throws an InputError when the text is not a LeaderMigrationConfiguration at all (syntax, kind, version);
 * returns strict-decoding findings as issues, so `validate` can report them all at once.
 */
export function decodeLeaderMigrationConfiguration(
  text: string,
  options: DecodeOptions = {},
): DecodedLeaderMigration {
  const file = options.file ?? '<input>';
  const strict = options.kubernetesVersion ? atLeast(options.kubernetesVersion, 1, 32) : true;
  const { doc, root, at } = parseMapping(text, file);
  const top = plainObject(doc, file);
  const v = apiVersionOf(top, text, file);
  const issues: ConfigIssue[] = [];
  const strictIssue = strictIssueSink(issues, strict, at);
  const typeError = typeErrorAt(file, at);
  checkTopFields(root, v, strictIssue);

  const leaderName = readString(top.leaderName, 'leaderName', doc, typeError);
  const resourceLock = v === 'v1' ? 'leases' : readString(top.resourceLock, 'resourceLock', doc, typeError);
  const controllerLeaders = readControllerLeaders(doc, top, strictIssue, typeError);
  return {
    apiVersion: v,
    config: { leaderName, resourceLock, controllerLeaders },
    issues,
    locate: (field) => {
      const node = doc.getIn(fieldPath(field), true) as { range?: [number] } | undefined;
      const pos = at(node?.range?.[0]);
      return pos;
    },
  };
}

type Position = { line: number; column: number };
type At = (offset: number | undefined) => Position | undefined;
/** Records a strict-decoding finding: an error from Kubernetes 1.32 on, a warning (ignored) before. */
type StrictIssue = (
  code: string,
  message: string,
  field: string,
  offset: number | undefined,
  hint: string,
) => void;
type TypeFailure = (field: string, expected: string, node: unknown) => never;

/** The YAML parsed, refused when it is not valid YAML, empty, or not a mapping. */
function parseMapping(text: string, file: string): { doc: Document; root: YAMLMap; at: At } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: false, prettyErrors: false, strict: true });
  const at: At = (offset) => {
    if (offset === undefined) return undefined;
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const syntax = doc.errors[0];
  if (syntax) {
    const pos = at(syntax.pos[0]);
    const unquotedStar = syntax.code === 'BAD_ALIAS' && /\*\s*$/.test(lineText(text, pos?.line));
    throw new InputError('UP-LM-YAML', `${file} is not valid YAML: ${firstLine(syntax.message)}`, {
      location: { file, line: pos?.line, column: pos?.column },
      hint: unquotedStar
        ? 'an unquoted * starts a YAML alias; quote it: component: "*" (the Kubernetes docs show it unquoted, which fails the same way)'
        : 'fix the YAML syntax at that position',
    });
  }
  const root = doc.contents;
  if (root === null || (isScalar(root) && (root.value === null || root.value === ''))) {
    throw new InputError('UP-LM-KIND', `Object 'Kind' is missing in '${text.trim()}'`, {
      location: { file },
      hint: `the file is empty; write a ${LEADER_MIGRATION_KIND} (see \`uproot leader-migration render\`)`,
    });
  }
  if (!isMap(root)) {
    throw new InputError('UP-LM-KIND', `${file} does not hold an object`, {
      location: { file, line: at(root.range?.[0])?.line },
      hint: `write a ${LEADER_MIGRATION_KIND} mapping with apiVersion and kind`,
    });
  }
  return { doc, root, at };
}

/** The document as plain values; anchors and aliases are valid YAML and Kubernetes accepts them, an alias to no anchor is not. */
function plainObject(doc: Document, file: string): Record<string, unknown> {
  try {
    return doc.toJS({ maxAliasCount: 100 }) as Record<string, unknown>;
  } catch (error) {
    throw new InputError('UP-LM-YAML', `${file} is not valid YAML: ${(error as Error).message}`, {
      location: { file },
      hint: 'a value starting with * is a YAML alias; quote it ("*") or define the anchor it refers to',
    });
  }
}

/** The configuration's version, refused as the scheme refuses a missing or unregistered kind and apiVersion. */
function apiVersionOf(top: Record<string, unknown>, text: string, file: string): LeaderMigrationApiVersion {
  const kind = top.kind;
  const apiVersion = top.apiVersion;
  if (typeof kind !== 'string' || kind === '') {
    throw new InputError('UP-LM-KIND', `Object 'Kind' is missing in '${compact(text)}'`, {
      location: { file, field: 'kind' },
      hint: `add kind: ${LEADER_MIGRATION_KIND}`,
    });
  }
  if (typeof apiVersion !== 'string' || apiVersion === '') {
    throw new InputError('UP-LM-KIND', `Object 'apiVersion' is missing in '${compact(text)}'`, {
      location: { file, field: 'apiVersion' },
      hint: `add apiVersion: ${LEADER_MIGRATION_GROUP}/v1`,
    });
  }
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
  if (
    group !== LEADER_MIGRATION_GROUP ||
    !(LEADER_MIGRATION_VERSIONS as readonly string[]).includes(version ?? '') ||
    kind !== LEADER_MIGRATION_KIND
  ) {
    throw new InputError(
      'UP-LM-KIND',
      `no kind "${kind}" is registered for version "${apiVersion}" in scheme "controllermanager.config.k8s.io"`,
      {
        location: {
          file,
          field: group === LEADER_MIGRATION_GROUP ? 'kind' : 'apiVersion',
          value: group === LEADER_MIGRATION_GROUP ? kind : apiVersion,
        },
        hint: `expected apiVersion ${LEADER_MIGRATION_GROUP}/v1 (or v1beta1, v1alpha1) and kind ${LEADER_MIGRATION_KIND}`,
      },
    );
  }
  return version as LeaderMigrationApiVersion;
}

function strictIssueSink(issues: ConfigIssue[], strict: boolean, at: At): StrictIssue {
  return (code, message, field, offset, hint) => {
    const pos = at(offset);
    issues.push({
      severity: strict ? 'error' : 'warning',
      code,
      message: strict ? `strict decoding error: ${message}` : `${message} (ignored before Kubernetes 1.32)`,
      field,
      line: pos?.line,
      column: pos?.column,
      hint,
    });
  };
}

function typeErrorAt(file: string, at: At): TypeFailure {
  return (field, expected, node) => {
    const pos = at((node as { range?: [number] } | undefined)?.range?.[0]);
    throw new InputError('UP-LM-TYPE', `${file}: ${field} must be ${expected}`, {
      location: { file, line: pos?.line, column: pos?.column, field },
      hint: `write ${field} as ${expected}`,
    });
  };
}

/** Top-level fields the version does not know, and fields given twice. */
function checkTopFields(root: YAMLMap, v: LeaderMigrationApiVersion, strictIssue: StrictIssue): void {
  const seen = new Map<string, number>();
  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    const offset = isScalar(pair.key) ? pair.key.range?.[0] : undefined;
    if (!TOP_FIELDS[v].includes(key)) {
      strictIssue(
        'strict-unknown-field',
        `unknown field "${key}"`,
        key,
        offset,
        key === 'resourceLock' && v === 'v1'
          ? 'v1 has no resourceLock (it is always leases); remove the field'
          : `remove it; ${v} accepts ${TOP_FIELDS[v].join(', ')}`,
      );
    }
  }
  for (const [key, count] of seen) {
    if (count > 1) {
      const pair = root.items.filter((p) => isScalar(p.key) && String(p.key.value) === key)[1];
      strictIssue(
        'strict-duplicate-field',
        `duplicate field "${key}"`,
        key,
        isScalar(pair?.key) ? pair.key.range?.[0] : undefined,
        'keep one of them',
      );
    }
  }
}

/** controllerLeaders: a list of {name, component}, each entry's unknown and repeated fields noted. */
function readControllerLeaders(
  doc: Document,
  top: Record<string, unknown>,
  strictIssue: StrictIssue,
  typeError: TypeFailure,
): ControllerLeader[] {
  const leadersNode = doc.get('controllerLeaders', true);
  const controllerLeaders: ControllerLeader[] = [];
  if (top.controllerLeaders !== undefined && top.controllerLeaders !== null) {
    if (!isSeq(leadersNode)) typeError('controllerLeaders', 'a list of {name, component}', leadersNode);
    (leadersNode as { items: unknown[] }).items.forEach((item, i) => {
      const field = `controllerLeaders[${i}]`;
      if (!isMap(item)) return typeError(field, 'an object with name and component', item);
      const counts = new Map<string, number>();
      for (const pair of item.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        counts.set(key, (counts.get(key) ?? 0) + 1);
        const offset = isScalar(pair.key) ? pair.key.range?.[0] : undefined;
        if (!LEADER_FIELDS.includes(key)) {
          strictIssue(
            'strict-unknown-field',
            `unknown field "${field}.${key}"`,
            `${field}.${key}`,
            offset,
            'each entry has only name and component',
          );
        }
        if (counts.get(key) === 2) {
          strictIssue(
            'strict-duplicate-field',
            `duplicate field "${field}.${key}"`,
            `${field}.${key}`,
            offset,
            'keep one of them',
          );
        }
      }
      const entry = (top.controllerLeaders as unknown[])[i] as Record<string, unknown>;
      controllerLeaders.push({
        name: readString(entry.name, `${field}.name`, doc, typeError),
        component: readString(entry.component, `${field}.component`, doc, typeError),
      });
    });
  }
  return controllerLeaders;
}

/** Absent fields decode to "" as in Go; anything that is not a string is a type error. */
function readString(
  value: unknown,
  field: string,
  doc: Document,
  typeError: (field: string, expected: string, node: unknown) => never,
): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  return typeError(field, 'a string', doc.getIn(fieldPath(field), true));
}

/** `controllerLeaders[2].name` → ['controllerLeaders', 2, 'name']. */
export function fieldPath(field: string): (string | number)[] {
  return field
    .split(/\.|\[(\d+)\]/)
    .filter((s) => s !== undefined && s !== '')
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

function firstLine(s: string): string {
  return s.split('\n')[0] ?? s;
}

function lineText(text: string, line: number | undefined): string {
  return line ? (text.split('\n')[line - 1] ?? '') : '';
}

function compact(text: string): string {
  const t = text.trim().replace(/\s+/g, ' ');
  return t.length > 80 ? `${t.slice(0, 77)}...` : t;
}
