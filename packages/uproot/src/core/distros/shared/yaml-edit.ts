/**
 * Edits a YAML file so that one document becomes a desired plain-JSON value, changing only the bytes that
 * must change: comments, blank lines, quoting, key order and the rest of the file stay as the user wrote them.
 *
 * The distro transformations work on plain JSON (the same functions the engine re-applies to live objects);
 * this module turns "before JSON → after JSON" into text splices on the user's file. Every result is parsed
 * back and compared with the desired value; when a construct is beyond the splicer (aliases, complex keys,
 * odd layouts) it falls back to the yaml Document API (comments kept, layout normalised), and checks again.
 */
import { isMap, isScalar, isSeq, parseAllDocuments, type Document } from 'yaml';
import { InputError, InternalError } from '../../../errors/index.js';
import { cloneJson, deepEqual } from '../../model/json-value.js';
import { reconcileAst } from './yaml-ast-reconcile.js';
import { SpliceEditor, Unsupported, type RenderStyle } from './yaml-splice-editor.js';

export { indentLines, renderBlockLiteral, type RenderStyle } from './yaml-splice-editor.js';

/** Parses a YAML stream; invalid text is an InputError (callers validate and locate earlier). */
export function parseStream(text: string): Document.Parsed[] {
  const docs = parseAllDocuments(text, { uniqueKeys: true });
  if (!Array.isArray(docs)) return [];
  for (const doc of docs) {
    const error = doc.errors[0];
    if (error) {
      throw new InputError('UP-PLAN-YAML', `not valid YAML: ${error.message.split('\n')[0] ?? ''}`, {
        hint: 'fix the YAML syntax, then run the command again',
      });
    }
  }
  return docs;
}

export function documentValue(doc: Document.Parsed): unknown {
  const js: unknown = doc.toJS({ maxAliasCount: 1000 });
  return js === undefined ? null : (JSON.parse(JSON.stringify(js)) as unknown);
}

/** Guesses the file's sequence indentation and quote preference, so inserted lines look like their neighbours. */
export function detectStyle(text: string, doc: Document.Parsed | undefined): RenderStyle {
  let indentSeq: boolean | undefined;
  let single = 0;
  let double = 0;
  const column = (offset: number): number => offset - (text.lastIndexOf('\n', offset - 1) + 1);
  const visit = (node: unknown): void => {
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = pair.key;
        const value = pair.value;
        if (
          indentSeq === undefined &&
          isSeq(value) &&
          !value.flow &&
          value.range &&
          isScalar(key) &&
          key.range
        ) {
          indentSeq = column(value.range[0]) > column(key.range[0]);
        }
        visit(value);
      }
    } else if (isSeq(node)) {
      node.items.forEach(visit);
    } else if (isScalar(node)) {
      if (node.type === 'QUOTE_SINGLE') single++;
      if (node.type === 'QUOTE_DOUBLE') double++;
    }
  };
  visit(doc?.contents);
  return { indentSeq: indentSeq ?? true, singleQuote: single > double };
}

/**
 * Returns `text` with document `docIndex` replaced by `desired` (plain JSON), keeping every untouched byte.
 * Other documents of the stream are never touched.
 */
export function editYamlText(text: string, docIndex: number, desired: unknown): string {
  const want = cloneJson(desired) ?? null;
  const docs = parseStream(text);
  const doc = docs[docIndex];
  if (!doc) throw new InternalError(`editYamlText: no document ${docIndex} in the text`);
  const current = documentValue(doc);
  if (deepEqual(current, want)) return text;
  const style = detectStyle(text, doc);
  const others = (d: readonly Document.Parsed[], t: string): string[] =>
    d.map((x, i) => (i === docIndex ? '' : t.slice(x.range[0], x.range[2])));
  const expectedOthers = others(docs, text);
  // Splices stay inside the edited document, so the others are compared as text, not re-read.
  const matches = (out: string, compareOthers: boolean): boolean => {
    try {
      const next = parseStream(out);
      if (next.length !== docs.length || !deepEqual(documentValue(next[docIndex]!), want)) return false;
      return !compareOthers || others(next, out).every((t, i) => t === expectedOthers[i]);
    } catch {
      return false;
    }
  };

  try {
    const editor = new SpliceEditor(text, style, doc);
    editor.reconcileRoot(current, want);
    const spliced = editor.apply();
    if (matches(spliced, true)) return spliced;
  } catch (error) {
    if (!(error instanceof Unsupported)) throw error;
  }
  const rendered = renderWithDocumentApi(text, docIndex, want, style);
  if (matches(rendered, false)) return rendered;
  throw new InternalError('could not edit the YAML file without changing other values; please report it');
}

/** The fallback: re-render the one document through the Document API (comments survive, layout may not). */
function renderWithDocumentApi(text: string, docIndex: number, desired: unknown, style: RenderStyle): string {
  const docs = parseStream(text);
  const doc = docs[docIndex];
  if (!doc) throw new InternalError(`editYamlText: no document ${docIndex}`);
  doc.contents = reconcileAst(doc, doc.contents, desired) as typeof doc.contents;
  const rendered = doc.toString({ lineWidth: 0, indentSeq: style.indentSeq, singleQuote: style.singleQuote });
  const start = docIndex === 0 ? 0 : doc.range[0];
  const end = doc.range[2];
  const next = text.slice(end);
  return text.slice(0, start) + rendered + (next && !rendered.endsWith('\n') ? '\n' : '') + next;
}
