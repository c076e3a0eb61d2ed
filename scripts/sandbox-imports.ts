/**
 * Rewrites the sandbox's deep imports of the library into its public entry points, the only modules a
 * sandbox file may import from outside src/sandbox (eslint.config.js, docs/decisions/0018-one-home-per-concept.md):
 *
 *   src/index.ts (uproot), src/core/index.ts (uproot/core), src/election/index.ts (uproot/election),
 *   src/election/testing.ts (uproot/election/testing)
 *
 * Each imported name is looked up by its declaration, not its spelling: it moves to the first entry (in that
 * order) that exports the same declaration, under the name that entry gives it. What no entry exports is left
 * where it was and reported, with the declaration's file, so it can be exported deliberately or replaced.
 *
 *   npx tsx scripts/sandbox-imports.ts [--check] [file ...]     (default: every .ts file under src/sandbox)
 *
 * --check writes nothing and exits 1 when a file would change or a name cannot be rewritten.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import * as prettier from 'prettier';
import ts from 'typescript';

const ROOT = resolve(new URL('..', import.meta.url).pathname);
const SANDBOX = join(ROOT, 'src', 'sandbox');
/** The public entries, most general first: a name two entries export goes to the first. */
const ENTRIES = ['src/index.ts', 'src/core/index.ts', 'src/election/index.ts', 'src/election/testing.ts'].map(
  (p) => join(ROOT, p),
);

interface Unresolved {
  readonly file: string;
  readonly line: number;
  readonly name: string;
  readonly from: string;
  readonly declaredIn: string;
}

interface FileResult {
  readonly file: string;
  readonly text: string;
  readonly changed: boolean;
  readonly unresolved: readonly Unresolved[];
}

async function main(argv: readonly string[]): Promise<number> {
  const check = argv.includes('--check');
  const named = argv.filter((a) => !a.startsWith('--')).map((a) => resolve(a));
  const files = named.length > 0 ? named : sandboxFiles(SANDBOX);
  const program = ts.createProgram([...ENTRIES, ...files], compilerOptions());
  const checker = program.getTypeChecker();
  const exportsByEntry = ENTRIES.map((entry) => ({ entry, names: entryExports(program, checker, entry) }));
  let failed = false;
  for (const file of files) {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`not in the program: ${file}`);
    const result = rewriteFile(source, checker, exportsByEntry);
    const rel = relative(ROOT, file);
    if (result.changed) {
      console.log(`${check ? 'would rewrite' : 'rewrote'} ${rel}`);
      if (!check) writeFileSync(file, await formatted(file, result.text));
      if (check) failed = true;
    }
    for (const u of result.unresolved) {
      failed = true;
      console.log(
        `  ${rel}:${u.line}: ${u.name} from ${u.from}: no entry exports it (declared in ${u.declaredIn})`,
      );
    }
  }
  return failed && check ? 1 : 0;
}

function compilerOptions(): ts.CompilerOptions {
  const configPath = join(ROOT, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  return ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT).options;
}

/**
 * Sandbox files that stand for a program rather than use the library: a fleet Job's pod runs the image's
 * `uproot` command, i.e. the CLI, on the twin's clock (eslint.config.js exempts it too).
 */
const NOT_LIBRARY_USERS = new Set([join(SANDBOX, 'fleet', 'jobs', 'pod-entry.ts')]);

function sandboxFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && d.name.endsWith('.ts') && !NOT_LIBRARY_USERS.has(join(d.parentPath, d.name)))
    .map((d) => join(d.parentPath, d.name))
    .sort();
}

/** The declaration a name finally stands for, through every re-export and import alias. */
function original(checker: ts.TypeChecker, symbol: ts.Symbol): ts.Symbol {
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

function entryExports(program: ts.Program, checker: ts.TypeChecker, entry: string): Map<ts.Symbol, string> {
  const source = program.getSourceFile(entry);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  const names = new Map<ts.Symbol, string>();
  if (!moduleSymbol) return names;
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    const target = original(checker, exported);
    if (!names.has(target)) names.set(target, exported.name);
  }
  return names;
}

function isOutsideSandbox(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
  if (target.startsWith(SANDBOX + sep) || ENTRIES.includes(target)) return undefined;
  return target;
}

function specifierFor(file: string, entry: string): string {
  const rel = relative(dirname(file), entry).replace(/\.ts$/, '.js').split(sep).join('/');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

interface Binding {
  /** The name in the entry. */
  readonly exported: string;
  /** The name in this file. */
  readonly local: string;
  readonly typeOnly: boolean;
}

function rewriteFile(
  source: ts.SourceFile,
  checker: ts.TypeChecker,
  entries: readonly { entry: string; names: Map<ts.Symbol, string> }[],
): FileResult {
  const file = source.fileName;
  const unresolved: Unresolved[] = [];
  const edits: { start: number; end: number; text: string }[] = [];
  for (const statement of source.statements) {
    const isImport = ts.isImportDeclaration(statement);
    const isExport = ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined;
    if (!isImport && !isExport) continue;
    const moduleSpecifier = (statement as ts.ImportDeclaration | ts.ExportDeclaration).moduleSpecifier;
    if (!moduleSpecifier || !ts.isStringLiteral(moduleSpecifier)) continue;
    const from = moduleSpecifier.text;
    if (!isOutsideSandbox(file, from)) continue;
    const line = source.getLineAndCharacterOfPosition(statement.getStart()).line + 1;
    const elements = namedElements(statement);
    if (!elements) {
      unresolved.push({ file, line, name: '(namespace or side-effect import)', from, declaredIn: from });
      continue;
    }
    const declarationTypeOnly = isImport
      ? (statement as ts.ImportDeclaration).importClause?.isTypeOnly === true
      : (statement as ts.ExportDeclaration).isTypeOnly;
    const byEntry = new Map<string, Binding[]>();
    const kept: ts.ImportSpecifier[] | ts.ExportSpecifier[] = [];
    for (const element of elements) {
      const symbol = checker.getSymbolAtLocation(element.propertyName ?? element.name);
      const target = symbol && original(checker, symbol);
      const home = target && entries.find((e) => e.names.has(target));
      if (!target || !home) {
        (kept as (ts.ImportSpecifier | ts.ExportSpecifier)[]).push(element);
        const declaredIn = target?.declarations?.[0]?.getSourceFile().fileName ?? '?';
        unresolved.push({
          file,
          line,
          name: element.name.text,
          from,
          declaredIn: relative(ROOT, declaredIn),
        });
        continue;
      }
      const list = byEntry.get(home.entry) ?? [];
      list.push({
        exported: home.names.get(target)!,
        local: element.name.text,
        typeOnly: declarationTypeOnly || element.isTypeOnly,
      });
      byEntry.set(home.entry, list);
    }
    if (byEntry.size === 0) continue;
    const keyword = isImport ? 'import' : 'export';
    const lines = [...byEntry].map(([entry, bindings]) =>
      declaration(keyword, bindings, specifierFor(file, entry)),
    );
    if (kept.length > 0)
      lines.push(
        statement
          .getText(source)
          .replace(/\{[^}]*\}/, `{ ${kept.map((k) => k.getText(source)).join(', ')} }`),
      );
    edits.push({ start: statement.getStart(source), end: statement.getEnd(), text: lines.join('\n') });
  }
  let text = source.text;
  for (const edit of edits.sort((a, b) => b.start - a.start))
    text = text.slice(0, edit.start) + edit.text + text.slice(edit.end);
  const merged = mergeEntryImports(file, text);
  return { file, text: merged, changed: merged !== source.text, unresolved };
}

function namedElements(
  statement: ts.ImportDeclaration | ts.ExportDeclaration,
): readonly (ts.ImportSpecifier | ts.ExportSpecifier)[] | undefined {
  if (ts.isImportDeclaration(statement)) {
    const clause = statement.importClause;
    if (!clause || clause.name || !clause.namedBindings || !ts.isNamedImports(clause.namedBindings))
      return undefined;
    return clause.namedBindings.elements;
  }
  return statement.exportClause && ts.isNamedExports(statement.exportClause)
    ? statement.exportClause.elements
    : undefined;
}

function declaration(keyword: 'import' | 'export', bindings: readonly Binding[], from: string): string {
  const allTypes = bindings.every((b) => b.typeOnly);
  const names = bindings.map((b) => {
    const name = b.exported === b.local ? b.local : `${b.exported} as ${b.local}`;
    return !allTypes && b.typeOnly ? `type ${name}` : name;
  });
  return `${keyword}${allTypes ? ' type' : ''} { ${names.join(', ')} } from '${from}';`;
}

/**
 * Joins the imports of one entry that the rewrite left apart (two deep imports that both went to uproot) into
 * the first of them, so the result reads as written by hand. Imports of other modules are left as they are.
 */
function mergeEntryImports(file: string, text: string): string {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const entrySpecifiers = new Set(ENTRIES.map((e) => specifierFor(file, e)));
  const groups = new Map<string, ts.ImportDeclaration[]>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const from = statement.moduleSpecifier.text;
    const clause = statement.importClause;
    if (!entrySpecifiers.has(from) || !clause || clause.name || !clause.namedBindings) continue;
    if (!ts.isNamedImports(clause.namedBindings)) continue;
    groups.set(from, [...(groups.get(from) ?? []), statement]);
  }
  const edits: { start: number; end: number; text: string }[] = [];
  for (const [from, declarations] of groups) {
    if (declarations.length < 2) continue;
    const bindings = declarations.flatMap((d) =>
      (d.importClause!.namedBindings as ts.NamedImports).elements.map((e) => ({
        exported: (e.propertyName ?? e.name).text,
        local: e.name.text,
        typeOnly: d.importClause!.isTypeOnly || e.isTypeOnly,
      })),
    );
    const unique = bindings.filter(
      (b, i) => bindings.findIndex((x) => x.local === b.local && x.typeOnly === b.typeOnly) === i,
    );
    edits.push({
      start: declarations[0]!.getStart(source),
      end: declarations[0]!.getEnd(),
      text: declaration('import', unique, from),
    });
    for (const d of declarations.slice(1)) {
      const end = text[d.getEnd()] === '\n' ? d.getEnd() + 1 : d.getEnd();
      edits.push({ start: d.getStart(source), end, text: '' });
    }
  }
  let out = text;
  for (const edit of edits.sort((a, b) => b.start - a.start))
    out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}

/** The project's prettier style, so a rewritten file needs no separate formatting run. */
async function formatted(file: string, text: string): Promise<string> {
  const options = (await prettier.resolveConfig(file)) ?? {};
  return prettier.format(text, { ...options, filepath: file });
}

process.exitCode = await main(process.argv.slice(2));
