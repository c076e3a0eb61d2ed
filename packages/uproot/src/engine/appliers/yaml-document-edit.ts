/**
 * Edits a parsed YAML document to a new plain value field by field, so comments and formatting of the fields
 * left alone are kept (the user's cluster.yml stays theirs).
 */
import type { Document } from 'yaml';
import { diffFields } from '../object-diff/field-diff.js';
import { lookup } from '../object-diff/json.js';

export function editDocument(doc: Document, from: unknown, to: unknown): number {
  const fields = diffFields(from, to, { arrays: 'by-index' });
  for (const f of fields) {
    if (f.path.length === 0) {
      doc.contents = doc.createNode(to) as typeof doc.contents;
      continue;
    }
    if (!f.after) {
      doc.deleteIn(f.path);
      continue;
    }
    // Set at the first level missing in the document, so new maps and lists are created whole.
    let depth = 1;
    while (depth < f.path.length && doc.hasIn(f.path.slice(0, depth))) depth++;
    const path = f.path.slice(0, depth);
    const value = lookup(to, path);
    if (value.present) doc.setIn(path, value.value);
  }
  return fields.length;
}
