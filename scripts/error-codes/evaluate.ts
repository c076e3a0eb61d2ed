import ts from 'typescript';
import { ExitCode } from '../../packages/uproot/src/errors/index.js';

/** A value the scanner could not work out statically. */
export const UNKNOWN: unique symbol = Symbol('unknown');

/** An object literal, read lazily: only the properties something looks at are evaluated. */
export interface ObjectValue {
  readonly object: ts.ObjectLiteralExpression;
  readonly env: Env;
}

export type Value = string | number | boolean | undefined | ObjectValue | typeof UNKNOWN;

export function isObjectValue(v: Value): v is ObjectValue {
  return typeof v === 'object';
}

/**
 * What is known while evaluating one raise: values bound to parameters (from a caller's arguments) and
 * truth values assumed for conditions, so that `c ? 'UP-A' : 'UP-B'` and `c ? 2 : 1` in the same
 * construction are read together rather than as every combination.
 */
export interface Env {
  readonly params: ReadonlyMap<ts.Symbol, Value>;
  readonly conditions: ReadonlyMap<string, boolean>;
}

export const EMPTY_ENV: Env = { params: new Map(), conditions: new Map() };

const CASE_METHODS: Record<string, (s: string) => string> = {
  toUpperCase: (s) => s.toUpperCase(),
  toLowerCase: (s) => s.toLowerCase(),
};

/**
 * Evaluates expressions to the set of values they can take. String literals read are noted in `seen`;
 * parameters read without a bound value are noted while `track` runs, so the caller can bind them from
 * the call sites and evaluate again.
 */
export class Evaluator {
  readonly seen = new Set<ts.Node>();
  private reads: Set<ts.Symbol> | undefined;

  constructor(private readonly checker: ts.TypeChecker) {}

  /** Runs `fn` and returns the parameters it read that had no bound value. */
  track(fn: () => void): Set<ts.Symbol> {
    const outer = this.reads;
    const reads = new Set<ts.Symbol>();
    this.reads = reads;
    try {
      fn();
    } finally {
      this.reads = outer;
      for (const r of reads) outer?.add(r);
    }
    return reads;
  }

  symbolOf(node: ts.Node): ts.Symbol | undefined {
    const symbol = this.checker.getSymbolAtLocation(node);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) return this.checker.getAliasedSymbol(symbol);
    return symbol;
  }

  values(expr: ts.Expression, env: Env, depth = 0): Value[] {
    if (depth > 8) return [UNKNOWN];
    const next = (e: ts.Expression): Value[] => this.values(e, env, depth + 1);
    if (ts.isStringLiteral(expr) || ts.isNoSubstitutionTemplateLiteral(expr)) {
      this.seen.add(expr);
      return [expr.text];
    }
    if (ts.isNumericLiteral(expr)) return [Number(expr.text)];
    if (expr.kind === ts.SyntaxKind.TrueKeyword) return [true];
    if (expr.kind === ts.SyntaxKind.FalseKeyword) return [false];
    if (
      ts.isParenthesizedExpression(expr) ||
      ts.isAsExpression(expr) ||
      ts.isNonNullExpression(expr) ||
      ts.isSatisfiesExpression(expr)
    ) {
      return next(expr.expression);
    }
    if (ts.isConditionalExpression(expr)) {
      const cond = this.truth(expr.condition, env, depth + 1);
      if (cond === true) return next(expr.whenTrue);
      if (cond === false) return next(expr.whenFalse);
      return unique([...next(expr.whenTrue), ...next(expr.whenFalse)]);
    }
    if (ts.isBinaryExpression(expr) && expr.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken) {
      const left = next(expr.left);
      const maybeNullish = left.some((v) => v === undefined || v === UNKNOWN);
      return unique([
        ...left.filter((v) => v !== undefined && v !== UNKNOWN),
        ...(maybeNullish ? next(expr.right) : []),
      ]);
    }
    if (ts.isTemplateExpression(expr)) return this.template(expr, env, depth);
    if (ts.isCallExpression(expr) && ts.isPropertyAccessExpression(expr.expression)) {
      const method = CASE_METHODS[expr.expression.name.text];
      if (method && expr.arguments.length === 0) {
        const inner = next(expr.expression.expression);
        if (!inner.includes(UNKNOWN)) return inner.map((v) => (typeof v === 'string' ? method(v) : UNKNOWN));
        return this.fromType(expr);
      }
    }
    if (ts.isIdentifier(expr)) {
      if (expr.text === 'undefined') return [undefined];
      const symbol = this.symbolOf(expr);
      if (symbol && env.params.has(symbol)) return [env.params.get(symbol)];
      const decl = symbol?.valueDeclaration;
      if (symbol && decl && ts.isParameter(decl)) this.reads?.add(symbol);
      if (decl && ts.isVariableDeclaration(decl) && decl.initializer && isConst(decl)) {
        const init = this.values(decl.initializer, env, depth + 1);
        if (!init.includes(UNKNOWN)) return init;
      }
      return this.fromType(expr);
    }
    if (ts.isObjectLiteralExpression(expr)) return [{ object: expr, env }];
    if (ts.isPropertyAccessExpression(expr)) {
      if (ts.isIdentifier(expr.expression)) {
        const owner = this.symbolOf(expr.expression);
        if (owner?.name === 'ExitCode' && isFromErrorsModule(owner)) {
          const value = (ExitCode as Record<string, number>)[expr.name.text];
          if (value !== undefined) return [value];
        }
      }
      const base = next(expr.expression);
      if (base.length > 0 && base.every(isObjectValue)) {
        const found = base.flatMap((o) => this.property(o, expr.name.text, depth + 1));
        if (!found.includes(UNKNOWN)) return unique(found);
      }
    }
    return this.fromType(expr);
  }

  /** Three-valued: true, false, or undefined when it depends on something only known at run time. */
  truth(expr: ts.Expression, env: Env, depth = 0): boolean | undefined {
    const assumed = env.conditions.get(conditionKey(expr));
    if (assumed !== undefined) return assumed;
    if (ts.isParenthesizedExpression(expr)) return this.truth(expr.expression, env, depth);
    if (ts.isPrefixUnaryExpression(expr) && expr.operator === ts.SyntaxKind.ExclamationToken) {
      const inner = this.truth(expr.operand, env, depth);
      return inner === undefined ? undefined : !inner;
    }
    if (ts.isBinaryExpression(expr)) {
      const op = expr.operatorToken.kind;
      if (op === ts.SyntaxKind.AmpersandAmpersandToken || op === ts.SyntaxKind.BarBarToken) {
        const l = this.truth(expr.left, env, depth);
        const r = this.truth(expr.right, env, depth);
        if (op === ts.SyntaxKind.AmpersandAmpersandToken) {
          return l === false || r === false ? false : l === true && r === true ? true : undefined;
        }
        return l === true || r === true ? true : l === false && r === false ? false : undefined;
      }
      const equality = {
        [ts.SyntaxKind.EqualsEqualsEqualsToken]: true,
        [ts.SyntaxKind.EqualsEqualsToken]: true,
        [ts.SyntaxKind.ExclamationEqualsEqualsToken]: false,
        [ts.SyntaxKind.ExclamationEqualsToken]: false,
      }[op as number];
      if (equality !== undefined) {
        const l = this.values(expr.left, env, depth + 1);
        const r = this.values(expr.right, env, depth + 1);
        if (l.length === 1 && r.length === 1 && l[0] !== UNKNOWN && r[0] !== UNKNOWN) {
          return (l[0] === r[0]) === equality;
        }
      }
    }
    const v = this.values(expr, env, depth + 1);
    return v.length === 1 && typeof v[0] === 'boolean' ? v[0] : undefined;
  }

  /** Conditions inside `expr` whose truth is not known under `env`: each raise is read once per assignment. */
  openConditions(expr: ts.Node, env: Env): string[] {
    const found: string[] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isConditionalExpression(node) && this.truth(node.condition, env) === undefined) {
        found.push(conditionKey(node.condition));
      }
      ts.forEachChild(node, visit);
    };
    visit(expr);
    return unique(found);
  }

  private property(o: ObjectValue, name: string, depth: number): Value[] {
    for (const p of [...o.object.properties].reverse()) {
      if (ts.isSpreadAssignment(p)) return [UNKNOWN];
      if (ts.isPropertyAssignment(p) && p.name.getText() === name)
        return this.values(p.initializer, o.env, depth);
      if (ts.isShorthandPropertyAssignment(p) && p.name.text === name)
        return this.values(p.name, o.env, depth);
    }
    return [undefined];
  }

  private template(expr: ts.TemplateExpression, env: Env, depth: number): Value[] {
    this.seen.add(expr);
    let results: Value[] = [expr.head.text];
    for (const span of expr.templateSpans) {
      const parts = this.values(span.expression, env, depth + 1);
      if (parts.some((v) => v === UNKNOWN || isObjectValue(v))) return [UNKNOWN];
      results = results.flatMap((prefix) =>
        parts.map((part) => `${String(prefix)}${String(part)}${span.literal.text}`),
      );
    }
    return unique(results);
  }

  /** What the type checker knows: a literal or a union of literals. */
  private fromType(expr: ts.Expression): Value[] {
    const type = this.checker.getTypeAtLocation(expr);
    const members = type.isUnion() ? type.types : [type];
    const values: Value[] = [];
    for (const t of members) {
      if (t.isStringLiteral() || t.isNumberLiteral()) values.push(t.value);
      else if (t.flags & ts.TypeFlags.BooleanLiteral) values.push(this.checker.typeToString(t) === 'true');
      else if (t.flags & ts.TypeFlags.Undefined) values.push(undefined);
      else return [UNKNOWN];
    }
    return values.length > 0 ? unique(values) : [UNKNOWN];
  }
}

/** Conditions are matched by their text, so the same test written twice is assumed to agree with itself. */
export function conditionKey(expr: ts.Expression): string {
  return expr.getText().replace(/\s+/g, ' ');
}

function isConst(decl: ts.VariableDeclaration): boolean {
  return ts.isVariableDeclarationList(decl.parent) && (decl.parent.flags & ts.NodeFlags.Const) !== 0;
}

function isFromErrorsModule(symbol: ts.Symbol): boolean {
  return (symbol.declarations ?? []).some((d) =>
    d.getSourceFile().fileName.replace(/\\/g, '/').endsWith('/errors/exit-codes.ts'),
  );
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}
