/**
 * The Document-API half of YAML editing: mutates a parsed document's nodes toward a desired plain value,
 * reusing every node that already holds the right value so its comments survive. Used when text splicing
 * cannot handle a construct; the caller re-renders the document.
 */
import { isMap, isScalar, isSeq, type Document } from 'yaml';
import { deepEqual, isRecord } from '../../model/json-value.js';
import { alignSequences } from './sequence-alignment.js';

function plain(doc: Document, node: unknown): unknown {
  if (node === null || node === undefined) return null;
  const value = (node as { toJS(doc: Document): unknown }).toJS(doc);
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as unknown);
}

export function reconcileAst(doc: Document, node: unknown, desired: unknown): unknown {
  if (deepEqual(plain(doc, node), desired)) return node;
  if (isMap(node) && isRecord(desired)) {
    const keyOf = (key: unknown): string => String(isScalar(key) ? key.value : key);
    node.items = node.items.filter((pair) => Object.hasOwn(desired, keyOf(pair.key)));
    for (const [key, value] of Object.entries(desired)) {
      const pair = node.items.find((p) => keyOf(p.key) === key);
      if (pair) pair.value = reconcileAst(doc, pair.value, value);
      else node.items.push(doc.createPair(key, value));
    }
    return node;
  }
  if (isSeq(node) && Array.isArray(desired)) {
    const old = node.items;
    const next: unknown[] = [];
    for (const op of alignSequences(
      old.map((item) => plain(doc, item)),
      desired,
    )) {
      if (op.type === 'keep') next.push(old[op.old]);
      else if (op.type === 'modify') next.push(reconcileAst(doc, old[op.old], desired[op.new]));
      else if (op.type === 'insert') next.push(doc.createNode(desired[op.new]));
    }
    node.items = next;
    return node;
  }
  if (isScalar(node) && (desired === null || typeof desired !== 'object')) {
    node.value = desired;
    if (typeof desired === 'string' && desired.includes('\n')) node.type = 'BLOCK_LITERAL';
    else if (node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED' || typeof desired !== 'string')
      node.type = 'PLAIN';
    return node;
  }
  return doc.createNode(desired);
}
