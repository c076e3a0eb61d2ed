import { readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** The library's own source files: no tests, no test helpers, no declaration files. */
export function sourceFiles(srcDir: string): string[] {
  return (readdirSync(srcDir, { recursive: true }) as string[])
    .map((f) => f.split(path.sep).join('/'))
    .filter(
      (f) =>
        f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts') && !f.includes('test-support/'),
    )
    .sort()
    .map((f) => path.join(srcDir, f));
}

const OPTIONS: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2023,
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  types: [],
  // The sandbox's `import { InputError } from 'uproot'` must reach the same class declarations as uproot's own
  // files do: the workspace packages' sources, not their built declarations.
  customConditions: ['uproot-source'],
};

/**
 * A program over the files, for symbol and type look-ups only (nothing is emitted or checked). Packages
 * are read as empty modules except zod (the gate types are inferred from zod schemas) and TypeScript's
 * own lib: the AWS SDK and client-node declarations would otherwise triple the time it takes.
 */
export function createProgram(files: readonly string[]): ts.Program {
  const host = ts.createCompilerHost(OPTIONS);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) =>
    /[/\\]node_modules[/\\](?!typescript[/\\]|zod[/\\])/.test(fileName)
      ? ts.createSourceFile(fileName, 'export {};', languageVersion)
      : read(fileName, languageVersion, onError, shouldCreate);
  return ts.createProgram(files, OPTIONS, host);
}
