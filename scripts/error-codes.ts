/**
 * Regenerates docs/errors.md: every error code the source raises, its exit code and whose fault it is
 * (read from the code), and what it means and what to do (from docs/error-meanings.yaml).
 *
 *   npx tsx scripts/error-codes.ts           rewrite docs/errors.md
 *   npx tsx scripts/error-codes.ts --check   exit 1 when docs/errors.md is stale
 *
 * Nothing is written while a raised code has no meaning, a meaning has no code, or a raise site cannot
 * be read; the problems are listed instead.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadMeanings } from './error-codes/meanings.js';
import { renderErrorsDoc, type RenderResult } from './error-codes/render.js';
import { scanErrorCodes } from './error-codes/scan.js';

export {
  CODE_PATTERN,
  scanErrorCodes,
  type CodeRaise,
  type CodeReference,
  type ScanResult,
} from './error-codes/scan.js';
export { loadMeanings, type Meaning, type Meanings } from './error-codes/meanings.js';
export { renderErrorsDoc, type DocumentedCode, type RenderResult } from './error-codes/render.js';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The paths the generator reads and writes, under a repository root. */
export function errorDocPaths(root: string): {
  src: readonly string[];
  base: string;
  meanings: string;
  doc: string;
} {
  // The workspace's packages (packages/*/src), named from packages/; or a lone src/ (a small test tree).
  const packages = path.join(root, 'packages');
  const base = existsSync(packages) ? packages : path.join(root, 'src');
  const src =
    base === packages
      ? readdirSync(packages)
          .sort()
          .map((p) => path.join(packages, p, 'src'))
          .filter((d) => existsSync(d))
      : [base];
  return {
    src,
    base,
    meanings: path.join(root, 'docs', 'error-meanings.yaml'),
    doc: path.join(root, 'docs', 'errors.md'),
  };
}

/** Scans every package's src/ under `root/packages` (or `root/src`) and renders the table with `root/docs/error-meanings.yaml`. */
export function generateErrorsDoc(root: string): RenderResult {
  const paths = errorDocPaths(root);
  const meanings = loadMeanings(paths.meanings);
  const result = renderErrorsDoc(scanErrorCodes(paths.src, paths.base), {
    ...meanings,
    file: path.relative(root, paths.meanings).split(path.sep).join('/'),
  });
  return result;
}

export interface CliOutput {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

/** The command line: returns the exit code (0 written / up to date, 1 stale or problems). */
export function runErrorCodesCli(args: readonly string[], root: string, output: CliOutput): number {
  const check = args.includes('--check');
  const unknown = args.filter((a) => a !== '--check');
  if (unknown.length > 0) {
    output.err(`unknown argument ${unknown[0]}; usage: npx tsx scripts/error-codes.ts [--check]`);
    return 2;
  }
  const { doc } = errorDocPaths(root);
  const result = generateErrorsDoc(root);
  if (result.problems.length > 0) {
    output.err(`docs/errors.md not ${check ? 'checked' : 'written'}; fix these first:`);
    for (const p of result.problems) output.err(`  ${p}`);
    return 1;
  }
  let current: string | undefined;
  try {
    current = readFileSync(doc, 'utf8');
  } catch {
    current = undefined;
  }
  if (check) {
    if (current === result.markdown) {
      output.out(`docs/errors.md is up to date (${result.codes.length} codes)`);
      return 0;
    }
    output.err('docs/errors.md is stale: run `npx tsx scripts/error-codes.ts`');
    return 1;
  }
  if (current !== result.markdown) writeFileSync(doc, result.markdown);
  output.out(
    `docs/errors.md: ${result.codes.length} codes${current === result.markdown ? ', unchanged' : ''}`,
  );
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = runErrorCodesCli(process.argv.slice(2), REPO_ROOT, {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
  });
}
