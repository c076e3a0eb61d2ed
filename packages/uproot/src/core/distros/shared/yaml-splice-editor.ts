/**
 * The text-splicing half of YAML editing: walks a parsed document next to its current plain value and the
 * desired one, and records minimal splices (a scalar rewritten in place, a key or list item inserted at its
 * neighbours' indentation, one deleted with its lines). Throws `Unsupported` for layouts it does not handle.
 */
import { isMap, isScalar, isSeq, stringify, type Document, type Scalar } from 'yaml';
import type { Pair, YAMLMap, YAMLSeq } from 'yaml';
import { deepEqual, isRecord } from '../../model/json-value.js';
import { alignSequences } from './sequence-alignment.js';

interface Splice {
  readonly start: number;
  readonly end: number;
  readonly text: string;
  readonly order: number;
}

export interface RenderStyle {
  /** `- item` indented under its key (true) or level with it (false, as kubectl prints). */
  readonly indentSeq: boolean;
  readonly singleQuote: boolean;
}

type ScalarValue = string | number | boolean | null;

function isScalarValue(value: unknown): value is ScalarValue {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

/** Thrown inside the splicer when a construct is beyond it; the caller falls back to the Document API. */
export class Unsupported extends Error {}

export class SpliceEditor {
  private readonly splices: Splice[] = [];
  private readonly options;

  constructor(
    private readonly src: string,
    style: RenderStyle,
    private readonly doc: Document.Parsed,
  ) {
    this.options = {
      indent: 2,
      indentSeq: style.indentSeq,
      lineWidth: 0,
      minContentWidth: 0,
      singleQuote: style.singleQuote,
      flowCollectionPadding: false,
      blockQuote: 'literal' as const,
    };
  }

  reconcileRoot(current: unknown, desired: unknown): void {
    const root = this.doc.contents;
    if (!root || !root.range) throw new Unsupported('empty document');
    const [start, , end] = root.range;
    this.reconcile(root, current, desired, -2, (value) => {
      this.splice(start, this.lineEndAfter(end), this.render(value));
    });
  }

  apply(): string {
    const ordered = [...this.splices].sort((a, b) => b.start - a.start || b.end - a.end || b.order - a.order);
    let text = this.src;
    let limit = Infinity;
    for (const s of ordered) {
      // Splices never overlap; a bug here must not silently corrupt a user's file.
      if (s.end > limit) throw new Unsupported('overlapping edits');
      text = text.slice(0, s.start) + s.text + text.slice(s.end);
      limit = s.start;
    }
    return text;
  }

  // --- positions -------------------------------------------------------------------------------------

  private lineStart(offset: number): number {
    return this.src.lastIndexOf('\n', offset - 1) + 1;
  }

  private column(offset: number): number {
    return offset - this.lineStart(offset);
  }

  /** The offset just after the newline that ends the line containing `offset - 1`. */
  private lineEndAfter(offset: number): number {
    if (offset > 0 && this.src[offset - 1] === '\n') return offset;
    const nl = this.src.indexOf('\n', offset);
    return nl < 0 ? this.src.length : nl + 1;
  }

  /** The offset of the newline ending the last content line of a node that ends at `end`. */
  private contentEnd(end: number): number {
    const lineEnd = this.lineEndAfter(end);
    return this.src[lineEnd - 1] === '\n' ? lineEnd - 1 : lineEnd;
  }

  private blankBefore(offset: number): boolean {
    return this.src.slice(this.lineStart(offset), offset).trim() === '';
  }

  private splice(start: number, end: number, text: string): void {
    this.splices.push({ start, end, text, order: this.splices.length });
  }

  private insert(at: number, text: string): void {
    // A file that does not end in a newline gets one before appended lines.
    const prefix = at === this.src.length && at > 0 && !this.src.endsWith('\n') ? '\n' : '';
    this.splice(at, at, prefix + text);
  }

  // --- reconciling -----------------------------------------------------------------------------------

  /** `current` is the node's value as plain JSON (carried down from the root, never recomputed). */
  private reconcile(
    node: unknown,
    current: unknown,
    desired: unknown,
    parentIndent: number,
    replace: (v: unknown) => void,
  ): void {
    if (deepEqual(current, desired)) return;
    if (
      isMap(node) &&
      !node.flow &&
      isRecord(current) &&
      isRecord(desired) &&
      Object.keys(desired).length > 0 &&
      this.mapEditable(node)
    ) {
      if (this.map(node, current, desired)) return;
    }
    if (
      isSeq(node) &&
      !node.flow &&
      Array.isArray(current) &&
      current.length === node.items.length &&
      Array.isArray(desired) &&
      desired.length > 0 &&
      node.items.length > 0
    ) {
      if (this.seq(node, current, desired)) return;
    }
    if (isScalar(node) && node.range && isScalarValue(desired)) {
      this.scalar(node, desired, parentIndent);
      return;
    }
    replace(desired);
  }

  private mapEditable(node: YAMLMap): boolean {
    if (node.items.length === 0) return false;
    const keys = new Set<string>();
    for (const pair of node.items) {
      const key = pair.key;
      if (!isScalar(key) || !key.range || key.value === null || typeof key.value === 'object') return false;
      const name = String(key.value);
      if (keys.has(name)) return false;
      keys.add(name);
    }
    return true;
  }

  private pairKey(pair: Pair): Scalar & { range: [number, number, number] } {
    return pair.key as Scalar & { range: [number, number, number] };
  }

  private pairEnd(pair: Pair): number {
    const value = pair.value as { range?: [number, number, number] } | null;
    return value?.range ? value.range[2] : this.pairKey(pair).range[2];
  }

  private map(node: YAMLMap, current: Record<string, unknown>, desired: Record<string, unknown>): boolean {
    const items = node.items;
    const first = items[0];
    if (!first) return false;
    const keyCol = this.column(this.pairKey(first).range[0]);
    const keep = items.map((pair) => Object.hasOwn(desired, String(this.pairKey(pair).value)));
    const firstInline = !this.blankBefore(this.pairKey(first).range[0]);
    let skipUntil = 0;
    if (firstInline && !keep[0]) {
      // The first key shares its line with "- ": pull the next kept key up onto that line.
      const next = keep.indexOf(true);
      if (next < 0) return false;
      this.splice(this.pairKey(first).range[0], this.pairKey(items[next]!).range[0], '');
      skipUntil = next;
    }
    items.forEach((pair, i) => {
      const key = this.pairKey(pair);
      if (!keep[i]) {
        if (i >= skipUntil)
          this.splice(this.lineStart(key.range[0]), this.lineEndAfter(this.pairEnd(pair)), '');
        return;
      }
      const name = String(key.value);
      this.reconcile(pair.value, current[name] ?? null, desired[name], keyCol, (value) =>
        this.replacePairValue(pair, value, keyCol),
      );
    });
    const existing = new Set(items.map((pair) => String(this.pairKey(pair).value)));
    const added = Object.keys(desired).filter((k) => !existing.has(k));
    if (added.length > 0) {
      const last = items[items.length - 1]!;
      const text = added.map((k) => indentLines(this.render({ [k]: desired[k] }), keyCol)).join('');
      this.insert(this.lineEndAfter(this.pairEnd(last)), text);
    }
    return true;
  }

  private replacePairValue(pair: Pair, desired: unknown, keyCol: number): void {
    const key = this.pairKey(pair);
    const colon = this.src.indexOf(':', key.range[1]);
    if (colon < 0) throw new Unsupported('no colon after key');
    const value = pair.value as (Scalar | YAMLMap | YAMLSeq) | null;
    const flow = (isMap(value) || isSeq(value)) && value.flow === true;
    const rendered = this.afterIndicator(
      desired,
      keyCol,
      flow,
      Array.isArray(desired) ? 'seq-under-key' : 'key',
    );
    const from = colon + 1;
    let to: number;
    if (!value || !value.range) to = from;
    else if (flow || (isScalar(value) && !isBlockScalar(value))) to = value.range[1];
    else to = this.contentEnd(value.range[2]);
    // Multi-line text must not end up before a trailing comment of the old inline value.
    if (rendered.includes('\n')) to = Math.max(to, this.contentEnd(to));
    this.splice(from, to, rendered);
  }

  private dashOf(item: unknown): number {
    const range = (item as { range?: [number, number, number] } | null)?.range;
    if (!range) return -1;
    let i = range[0] - 1;
    while (i >= 0 && this.src[i] === ' ') i--;
    if (this.src[i] !== '-' || !this.blankBefore(i)) return -1;
    return i;
  }

  private seq(node: YAMLSeq, current: unknown[], desired: unknown[]): boolean {
    const items = node.items;
    const dashes = items.map((item) => this.dashOf(item));
    if (dashes.some((d) => d < 0)) return false;
    const dashCol = this.column(dashes[0]!);
    const itemEnd = (i: number): number =>
      this.lineEndAfter((items[i] as { range: [number, number, number] }).range[2]);
    const ops = alignSequences(current, desired);
    const inserts = new Map<number, string[]>();
    for (const op of ops) {
      if (op.type === 'keep') continue;
      if (op.type === 'delete') {
        this.splice(this.lineStart(dashes[op.old]!), itemEnd(op.old), '');
      } else if (op.type === 'modify') {
        const dash = dashes[op.old]!;
        const item = items[op.old];
        this.reconcile(item, current[op.old], desired[op.new], dashCol, (value) =>
          this.replaceItem(item, dash, value, dashCol),
        );
      } else {
        const at = op.afterOld < 0 ? this.lineStart(dashes[0]!) : itemEnd(op.afterOld);
        const text = indentLines(this.render([desired[op.new]]), dashCol);
        inserts.set(at, [...(inserts.get(at) ?? []), text]);
      }
    }
    for (const [at, texts] of inserts) this.insert(at, texts.join(''));
    return true;
  }

  private replaceItem(item: unknown, dash: number, desired: unknown, dashCol: number): void {
    const node = item as (Scalar | YAMLMap | YAMLSeq) | null;
    const flow = (isMap(node) || isSeq(node)) && node.flow === true;
    const rendered = this.afterIndicator(desired, dashCol, flow, 'dash');
    const from = dash + 1;
    let to: number;
    if (!node || !node.range) to = from;
    else if (flow || (isScalar(node) && !isBlockScalar(node))) to = node.range[1];
    else to = this.contentEnd(node.range[2]);
    if (rendered.includes('\n')) to = Math.max(to, this.contentEnd(to));
    this.splice(from, to, rendered);
  }

  /** What follows `key:` or `-`: an inline value, or a block starting on the next line (or after "- "). */
  private afterIndicator(
    desired: unknown,
    indent: number,
    preferFlow: boolean,
    where: 'key' | 'seq-under-key' | 'dash',
  ): string {
    if (isScalarValue(desired)) {
      const inline = this.inlineScalar(desired, undefined);
      if (inline !== undefined) return ` ${inline}`;
      const block = renderBlockLiteral(desired as string, indent + 2);
      if (block !== undefined) return ` ${block.replace(/\n$/, '')}`;
      return ` ${this.inlineScalar(desired, 'QUOTE_DOUBLE') ?? JSON.stringify(desired)}`;
    }
    const empty = Array.isArray(desired) ? desired.length === 0 : Object.keys(desired as object).length === 0;
    if (empty || preferFlow) return ` ${this.flow(desired)}`;
    const body = this.render(desired).replace(/\n$/, '');
    if (where === 'dash') return ` ${indentLines(body, indent + 2).slice(indent + 2)}`;
    const childIndent = where === 'seq-under-key' && !this.options.indentSeq ? indent : indent + 2;
    return `\n${indentLines(body, childIndent)}`;
  }

  private scalar(node: Scalar, desired: ScalarValue, parentIndent: number): void {
    const range = node.range!;
    const block = isBlockScalar(node);
    if (typeof desired === 'string' && (block || desired.includes('\n'))) {
      const indent = (block ? this.blockIndent(node) : undefined) ?? parentIndent + 2;
      const text = renderBlockLiteral(desired, indent);
      if (text !== undefined) {
        // A block scalar's value range ends after its last newline; an inline one is followed by the rest of its line.
        const end = block ? range[1] : this.lineEndAfter(range[1]);
        // At the end of a text without a final newline (a YAML string inside YAML), do not add one.
        const atEof = end === this.src.length && !this.src.endsWith('\n');
        this.splice(range[0], end, atEof ? text.replace(/\n$/, '') : text);
        return;
      }
    }
    const keepType = node.type === 'QUOTE_SINGLE' || node.type === 'QUOTE_DOUBLE' ? node.type : undefined;
    const inline = this.inlineScalar(desired, keepType) ?? this.inlineScalar(desired, 'QUOTE_DOUBLE');
    if (inline === undefined) throw new Unsupported('scalar cannot be written inline');
    this.splice(range[0], range[1], block ? `${inline}\n` : inline);
  }

  /** The indentation of an existing block scalar's content lines, when it has any. */
  private blockIndent(node: Scalar): number | undefined {
    const range = node.range!;
    const header = this.src.slice(range[0], this.lineEndAfter(range[0] + 1));
    if (/^[|>][-+]?\d/.test(header) || /^[|>]\d/.test(header)) return undefined;
    let offset = this.lineEndAfter(range[0] + 1);
    while (offset < range[1]) {
      const nl = this.src.indexOf('\n', offset);
      const end = nl < 0 ? this.src.length : nl;
      const line = this.src.slice(offset, end);
      if (line.trim() !== '') return line.length - line.trimStart().length;
      offset = end + 1;
    }
    return undefined;
  }

  private inlineScalar(
    value: ScalarValue,
    type: 'QUOTE_SINGLE' | 'QUOTE_DOUBLE' | undefined,
  ): string | undefined {
    const text = stringify(value, {
      ...this.options,
      ...(type ? { defaultStringType: type } : {}),
    }).replace(/\n$/, '');
    return text.includes('\n') ? undefined : text;
  }

  private render(value: unknown): string {
    return stringify(value, this.options);
  }

  private flow(value: unknown): string {
    const text = JSON.stringify(value);
    return text;
  }
}

function isBlockScalar(node: Scalar): boolean {
  return node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED';
}

/** Prefixes every non-empty line with `n` spaces (empty lines stay empty, as in block scalars). */
export function indentLines(text: string, n: number): string {
  if (n <= 0) return text;
  const pad = ' '.repeat(n);
  return text
    .split('\n')
    .map((line) => (line === '' ? '' : pad + line))
    .join('\n');
}

/**
 * A literal block scalar (header, newline, content lines at `indent`), ending in a newline; undefined when
 * the value cannot be written that way (leading spaces on the first line, control characters, empty).
 */
export function renderBlockLiteral(value: string, indent: number): string | undefined {
  if (value === '' || value.trim() === '') return undefined;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b-\u001f\u007f\ufeff\r]/.test(value)) return undefined;
  const firstContent = value.split('\n').find((line) => line !== '');
  if (firstContent === undefined || /^[ \t]/.test(firstContent)) return undefined;
  const trailing = /\n*$/.exec(value)?.[0].length ?? 0;
  const chomp = trailing === 0 ? '-' : trailing === 1 ? '' : '+';
  const body = chomp === '-' ? value : value.slice(0, -1);
  const pad = ' '.repeat(indent);
  const lines = body.split('\n').map((line) => (line === '' ? '' : pad + line));
  return `|${chomp}\n${lines.join('\n')}\n`;
}
