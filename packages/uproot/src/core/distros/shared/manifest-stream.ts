/**
 * A string that holds YAML documents (RKE2's spec.rkeConfig.additionalManifest, a HelmChart's
 * valuesContent): find a document, edit it in place, or append one, leaving the user's other documents
 * byte for byte.
 */
import { documentValue, editYamlText, parseStream } from './yaml-edit.js';
import { isRecord } from '../../model/json-value.js';

/** Every document of the stream as plain JSON (an empty string has none). */
export function manifestDocuments(text: string): unknown[] {
  return parseStream(text).map(documentValue);
}

/** The index of the first document with this kind and name (any namespace when not given), or -1. */
export function findManifest(
  documents: readonly unknown[],
  match: { apiVersionPrefix?: string; kind: string; name: string; namespace?: string },
): number {
  return documents.findIndex((doc) => {
    if (!isRecord(doc) || doc.kind !== match.kind) return false;
    if (match.apiVersionPrefix && !String(doc.apiVersion ?? '').startsWith(match.apiVersionPrefix))
      return false;
    const meta = doc.metadata;
    if (!isRecord(meta) || meta.name !== match.name) return false;
    return match.namespace === undefined || (meta.namespace ?? 'default') === match.namespace;
  });
}

export function replaceManifest(text: string, index: number, desired: unknown): string {
  return editYamlText(text, index, desired);
}

/** Appends a document (YAML text ending in a newline), keeping the stream's trailing-newline convention. */
export function appendManifest(text: string, documentYaml: string): string {
  const body = documentYaml.endsWith('\n') ? documentYaml : `${documentYaml}\n`;
  if (text.trim() === '') return body.replace(/\n$/, '');
  const endsWithNewline = text.endsWith('\n');
  const joined = `${endsWithNewline ? text : `${text}\n`}---\n${body}`;
  return endsWithNewline ? joined : joined.replace(/\n$/, '');
}

/** Removes one document (and its separator), keeping the others as written. */
export function removeManifest(text: string, index: number): string {
  const docs = parseStream(text);
  const doc = docs[index];
  if (!doc) return text;
  const start = index === 0 ? 0 : doc.range[0];
  let end = doc.range[2];
  if (index === 0 && docs[1]) {
    // Drop the next document's "---" so the stream does not start with an empty document.
    const next = docs[1].range[0];
    end = text.startsWith('---', next) ? text.indexOf('\n', next) + 1 || text.length : next;
  }
  const out = text.slice(0, start) + text.slice(end);
  return text.endsWith('\n') ? out : out.replace(/\n$/, '');
}
