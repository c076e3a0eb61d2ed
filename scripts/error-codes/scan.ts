import path from 'node:path';
import ts from 'typescript';
import * as errors from '../../packages/uproot/src/errors/index.js';
import type { ErrorSource } from '../../packages/uproot/src/errors/index.js';
import { EMPTY_ENV, Evaluator, UNKNOWN, type Env, type Value } from './evaluate.js';
import { createProgram, sourceFiles } from './program.js';

/** A stable error code: `UP-` and upper-case words. */
export const CODE_PATTERN = /^UP-[A-Z0-9]+(?:-[A-Z0-9]+)*$/;

/**
 * One place a code comes out of uproot. `error`: an UprootError (or subclass) is constructed with it, and
 * its source and exit code are what that construction yields. `record`: the code is written into a
 * record (a journal step's failure) without an error object, so source and exit code are not in the code.
 */
export interface CodeRaise {
  readonly code: string;
  /** Relative to the source folder, with `/`. */
  readonly file: string;
  readonly line: number;
  readonly kind: 'error' | 'record';
  readonly source?: ErrorSource;
  readonly exit?: number;
}

/** A code used other than by raising it (a comparison, a lookup): it must be one that is raised. */
export interface CodeReference {
  readonly code: string;
  readonly file: string;
  readonly line: number;
}

export interface ScanResult {
  readonly raises: readonly CodeRaise[];
  readonly references: readonly CodeReference[];
  /** Raise sites the scanner could not read; each is a reason the docs cannot be trusted. */
  readonly problems: readonly string[];
}

type ErrorClass = new (...args: unknown[]) => errors.UprootError;
type FunctionLike = ts.SignatureDeclaration & { readonly parameters: ts.NodeArray<ts.ParameterDeclaration> };

interface CallSite {
  readonly node: ts.CallExpression | ts.NewExpression;
  readonly args: readonly ts.Expression[];
}

/** Where a raise is attributed, and what its function's parameters are bound to there. */
interface Context {
  readonly env: Env;
  readonly node: ts.Node;
}

const MAX_DEPTH = 6;
const MAX_OPEN_CONDITIONS = 4;

/**
 * Finds every error code raised in `srcDir` (one folder or several; tests excluded) by reading the TypeScript: constructions of
 * the classes in src/errors and their subclasses, codes passed through helper functions and subclass
 * constructors (attributed to the caller), template codes expanded over the literal types they are built
 * from, and `code:` fields of records. Source and exit code come from constructing the real class.
 */
export function scanErrorCodes(srcDir: string | readonly string[], base?: string): ScanResult {
  const dirs = typeof srcDir === 'string' ? [srcDir] : srcDir;
  // Files are named relative to `base` (default: the one source folder).
  const from = base ?? dirs[0] ?? '.';
  const files = dirs.flatMap((d) => sourceFiles(d));
  const program = createProgram(files);
  const checker = program.getTypeChecker();
  const ev = new Evaluator(checker);
  const sources = files.map((f) => program.getSourceFile(f)).filter((sf): sf is ts.SourceFile => !!sf);
  const raises: CodeRaise[] = [];
  const references: CodeReference[] = [];
  const problems: string[] = [];

  const where = (node: ts.Node): { file: string; line: number } => {
    const sf = node.getSourceFile();
    return {
      file: path.relative(from, sf.fileName).split(path.sep).join('/'),
      line: sf.getLineAndCharacterOfPosition(node.getStart()).line + 1,
    };
  };
  const at = (node: ts.Node): string => {
    const w = where(node);
    return `${w.file}:${w.line}`;
  };

  // --- classes ---------------------------------------------------------------------------------------
  const classOf = (expr: ts.Expression): ts.ClassDeclaration | undefined =>
    ev.symbolOf(expr)?.declarations?.find(ts.isClassDeclaration);
  const parentOf = (decl: ts.ClassDeclaration): ts.ClassDeclaration | undefined => {
    const ext = decl.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0];
    return ext ? classOf(ext.expression) : undefined;
  };
  const runtimeBase = (decl: ts.ClassDeclaration): ErrorClass | undefined => {
    const name = decl.name?.text;
    if (!name || !decl.getSourceFile().fileName.replace(/\\/g, '/').endsWith('/errors/uproot-error.ts')) {
      return undefined;
    }
    const value = (errors as Record<string, unknown>)[name];
    if (typeof value !== 'function') return undefined;
    const proto = (value as { prototype: unknown }).prototype;
    return value === errors.UprootError || proto instanceof errors.UprootError
      ? (value as ErrorClass)
      : undefined;
  };
  const isErrorClass = (decl: ts.ClassDeclaration | undefined, depth = 0): boolean =>
    !!decl && depth < 10 && (!!runtimeBase(decl) || isErrorClass(parentOf(decl), depth + 1));
  const ctorOf = (decl: ts.ClassDeclaration): ts.ConstructorDeclaration | undefined =>
    decl.members.find((m): m is ts.ConstructorDeclaration => ts.isConstructorDeclaration(m) && !!m.body);
  /** The class whose constructor runs for `new decl(...)`: the nearest with its own constructor. */
  const effectiveClass = (decl: ts.ClassDeclaration | undefined): ts.ClassDeclaration | undefined => {
    for (let d = decl, i = 0; d && i < 10; d = parentOf(d), i++) if (runtimeBase(d) || ctorOf(d)) return d;
    return undefined;
  };
  const insideBase = (node: ts.Node): boolean => {
    for (let n: ts.Node | undefined = node; n; n = n.parent) {
      if (ts.isClassDeclaration(n) && runtimeBase(n)) return true;
    }
    return false;
  };

  // --- call sites --------------------------------------------------------------------------------------
  /** What a call-like runs: a base error class, or a function / constructor in the source. */
  const targetOf = (
    node: ts.CallExpression | ts.NewExpression,
  ): ts.ClassDeclaration | FunctionLike | undefined => {
    let cls: ts.ClassDeclaration | undefined;
    if (ts.isNewExpression(node)) cls = effectiveClass(classOf(node.expression));
    else if (node.expression.kind === ts.SyntaxKind.SuperKeyword) {
      const own = ts.findAncestor(node, ts.isClassDeclaration);
      cls = own ? effectiveClass(parentOf(own)) : undefined;
    } else {
      const decl = ev.symbolOf(
        ts.isPropertyAccessExpression(node.expression) ? node.expression.name : node.expression,
      )?.declarations?.[0];
      if (decl && (ts.isFunctionDeclaration(decl) || ts.isMethodDeclaration(decl))) return decl;
      if (decl && ts.isVariableDeclaration(decl) && decl.initializer) {
        const init = decl.initializer;
        if (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) return init;
      }
      return undefined;
    }
    if (!cls || !isErrorClass(cls)) return undefined;
    return runtimeBase(cls) ? cls : ctorOf(cls);
  };

  const callIndex = new Map<ts.Node, CallSite[]>();
  const terminals: { site: CallSite; base: ts.ClassDeclaration }[] = [];
  const records: ts.PropertyAssignment[] = [];
  const literals: ts.StringLiteralLike[] = [];
  const templates: ts.TemplateExpression[] = [];
  for (const sf of sources) {
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
        const target = targetOf(node);
        const site = { node, args: node.arguments ?? [] };
        if (target && ts.isClassDeclaration(target)) {
          if (!insideBase(node)) terminals.push({ site, base: target });
        } else if (target) {
          callIndex.set(target, [...(callIndex.get(target) ?? []), site]);
        }
      }
      if (
        ts.isPropertyAssignment(node) &&
        ts.isIdentifier(node.name) &&
        node.name.text === 'code' &&
        /^[`'"]UP-/.test(node.initializer.getText())
      ) {
        records.push(node);
      }
      if (
        (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) &&
        CODE_PATTERN.test(node.text)
      ) {
        literals.push(node);
      }
      if (ts.isTemplateExpression(node) && node.head.text.startsWith('UP-')) templates.push(node);
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }

  // --- forwarding to callers ----------------------------------------------------------------------------
  const enclosingFunction = (node: ts.Node): FunctionLike | undefined =>
    ts.findAncestor(node.parent, ts.isFunctionLike) as FunctionLike | undefined;
  const isErrorCtor = (fn: FunctionLike): boolean =>
    ts.isConstructorDeclaration(fn) && isErrorClass(fn.parent as ts.ClassDeclaration);
  /** Parameters of `fn` that evaluating the expressions reads without a value. */
  const paramsRead = (
    exprs: readonly (ts.Expression | undefined)[],
    fn: FunctionLike,
    env: Env,
  ): ts.Symbol[] => {
    const reads = ev.track(() => {
      for (const e of exprs) if (e) ev.values(e, env);
    });
    return [...reads].filter((s) => fn.parameters.some((d) => d === s.valueDeclaration));
  };

  /**
   * The contexts a function runs in: one per call site, with `params` bound to the values of the
   * arguments there; recursively while those arguments need the caller's own parameters, or the caller
   * is an error constructor (a code is raised where the error is constructed). Empty when nothing in the
   * source calls it.
   */
  const contexts = (
    fn: FunctionLike,
    params: readonly ts.Symbol[],
    depth: number,
    stack: Set<ts.Node>,
  ): Context[] => {
    const out: Context[] = [];
    for (const call of callIndex.get(fn) ?? []) {
      const args = params.map((p) => {
        const index = fn.parameters.findIndex((d) => ev.symbolOf(d.name) === p);
        const param = fn.parameters[index];
        return {
          symbol: p,
          arg: call.args[index] ?? param?.initializer,
          spread: call.args.some(ts.isSpreadElement),
        };
      });
      const caller = enclosingFunction(call.node);
      const callerParams = caller
        ? paramsRead(
            args.map((a) => a.arg),
            caller,
            EMPTY_ENV,
          )
        : [];
      let outer: Context[] = [];
      if (
        caller &&
        !stack.has(caller) &&
        depth < MAX_DEPTH &&
        (callerParams.length > 0 || isErrorCtor(caller))
      ) {
        outer = contexts(caller, callerParams, depth + 1, new Set([...stack, caller]));
      }
      if (outer.length === 0) outer = [{ env: EMPTY_ENV, node: call.node }];
      for (const o of outer) {
        let bindings: Map<ts.Symbol, Value>[] = [new Map()];
        for (const a of args) {
          const values: Value[] = a.spread ? [UNKNOWN] : a.arg ? ev.values(a.arg, o.env) : [undefined];
          bindings = bindings.flatMap((b) => values.map((v) => new Map([...b, [a.symbol, v]])));
        }
        for (const b of bindings) out.push({ env: { params: b, conditions: new Map() }, node: o.node });
      }
    }
    return out;
  };

  // --- raises --------------------------------------------------------------------------------------------
  for (const { site, base } of terminals) {
    const Cls = runtimeBase(base)!;
    const paramNames = (ctorOf(base)?.parameters ?? []).map((p) => p.name.getText());
    const codeIndex = paramNames.indexOf('code');
    const codeExpr = codeIndex >= 0 ? site.args[codeIndex] : undefined;
    const options = site.args[paramNames.indexOf('options')];
    const optionExpr = (name: string): ts.Expression | undefined => {
      if (!options || !ts.isObjectLiteralExpression(options)) return undefined;
      for (const p of options.properties) {
        if (ts.isPropertyAssignment(p) && p.name.getText() === name) return p.initializer;
        if (ts.isShorthandPropertyAssignment(p) && p.name.text === name) return p.name;
      }
      return undefined;
    };
    const sourceExpr = optionExpr('source');
    const exitExpr = optionExpr('exitCode');
    if (codeIndex >= 0 && !codeExpr) {
      problems.push(`${at(site.node)}: ${base.name?.text} constructed without a code`);
      continue;
    }
    // `new InputError(error.code, …)`: re-raising a code raised elsewhere.
    if (codeExpr && ts.isPropertyAccessExpression(codeExpr) && codeExpr.name.text === 'code') continue;

    const fn = enclosingFunction(site.node);
    const read = fn ? paramsRead([codeExpr, sourceExpr, exitExpr], fn, EMPTY_ENV) : [];
    let ctxs: Context[] = [];
    if (fn && (read.length > 0 || isErrorCtor(fn))) ctxs = contexts(fn, read, 0, new Set([fn]));
    if (ctxs.length === 0) ctxs = [{ env: EMPTY_ENV, node: site.node }];

    for (const ctx of ctxs) {
      const open = codeExpr ? ev.openConditions(codeExpr, ctx.env) : [];
      const assignments =
        open.length <= MAX_OPEN_CONDITIONS ? truthTable(open) : [new Map<string, boolean>()];
      for (const conditions of assignments) {
        const env: Env = { params: ctx.env.params, conditions };
        const codes = codeExpr ? ev.values(codeExpr, env) : [new Cls('probe', {}).code];
        const srcs = sourceExpr ? ev.values(sourceExpr, env) : [undefined];
        const exits = exitExpr ? ev.values(exitExpr, env) : [undefined];
        const unreadable = [codes, srcs, exits].some((vs) => vs.includes(UNKNOWN));
        if (unreadable || codes.some((c) => typeof c !== 'string' || !CODE_PATTERN.test(c))) {
          problems.push(
            `${at(site.node)} (raised from ${at(ctx.node)}): cannot tell the code, source or exit code of this ${base.name?.text}; ` +
              `use literals (or a literal union type) so docs/errors.md can list it`,
          );
          continue;
        }
        for (const code of codes as string[]) {
          for (const source of srcs) {
            for (const exitCode of exits) {
              const options = {
                ...(source === undefined ? {} : { source }),
                ...(exitCode === undefined ? {} : { exitCode }),
              };
              const e = codeExpr ? new Cls(code, 'probe', options) : new Cls('probe', options);
              raises.push({
                code: e.code,
                ...where(ctx.node),
                kind: 'error',
                source: e.source,
                exit: e.exitCode,
              });
            }
          }
        }
      }
    }
  }

  for (const record of records) {
    const codes = ev.values(record.initializer, EMPTY_ENV);
    if (codes.some((c) => typeof c !== 'string' || !CODE_PATTERN.test(c))) {
      problems.push(`${at(record)}: cannot tell the codes this record field can hold`);
      continue;
    }
    for (const code of codes as string[]) raises.push({ code, ...where(record), kind: 'record' });
  }

  // --- everything else that looks like a code ------------------------------------------------------------
  for (const lit of literals) {
    if (ev.seen.has(lit) || insideBase(lit) || insideSeenTemplate(lit, ev.seen)) continue;
    references.push({ code: lit.text, ...where(lit) });
  }
  for (const t of templates) {
    if (!ev.seen.has(t) && !insideBase(t))
      problems.push(`${at(t)}: a code built at run time is neither raised nor recorded`);
  }

  return { raises: dedupe(raises), references, problems };
}

function truthTable(keys: readonly string[]): Map<string, boolean>[] {
  let rows: Map<string, boolean>[] = [new Map()];
  for (const k of keys) rows = rows.flatMap((r) => [new Map([...r, [k, true]]), new Map([...r, [k, false]])]);
  return rows;
}

function insideSeenTemplate(node: ts.Node, seen: ReadonlySet<ts.Node>): boolean {
  return !!ts.findAncestor(node.parent, (n) => ts.isTemplateExpression(n) && seen.has(n));
}

function dedupe(raises: readonly CodeRaise[]): CodeRaise[] {
  const seen = new Map<string, CodeRaise>();
  for (const r of raises) seen.set(JSON.stringify([r.code, r.file, r.line, r.kind, r.source, r.exit]), r);
  return [...seen.values()];
}
