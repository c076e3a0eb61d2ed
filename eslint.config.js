import path from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/**
 * `uproot/imports-within`: a relative import that leaves `root` must name one of `entries` (paths from the
 * repository root, as .ts) or a file under one of `folders` (whole layers it may use). Resolved against the
 * importing file, so `../../index.js` from one folder and `../../../index.js` from another are both the same
 * entry. Package imports are not its concern, nor (given `scope`) imports that leave `scope`.
 */
const importsWithin = {
  meta: {
    type: 'problem',
    schema: [
      {
        type: 'object',
        properties: {
          root: { type: 'string' },
          entries: { type: 'array', items: { type: 'string' } },
          folders: { type: 'array', items: { type: 'string' } },
          scope: { type: 'string' },
          message: { type: 'string' },
        },
        required: ['root', 'entries', 'message'],
        additionalProperties: false,
      },
    ],
  },
  create(context) {
    const { root, entries, folders = [], scope, message } = context.options[0];
    const check = (node) => {
      const source = node?.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = path
        .relative(context.cwd, path.resolve(path.dirname(context.filename), source))
        .replace(/\.js$/, '.ts')
        .split(path.sep)
        .join('/');
      if (scope !== undefined && !target.startsWith(`${scope}/`)) return;
      if ([root, ...folders].some((f) => target.startsWith(`${f}/`)) || entries.includes(target)) return;
      context.report({ node, message: `${message} (${source} is ${target})` });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};
/**
 * `uproot/layer-order`: inside `root`, each folder sits on one tier of `tiers` (lowest first) and imports only
 * folders on lower tiers, besides itself; folders on one tier do not import each other. Files directly in
 * `root` (its index) and imports that leave `root` are not its concern (the rules above and below are).
 */
const layerOrder = {
  meta: {
    type: 'problem',
    schema: [
      {
        type: 'object',
        properties: {
          root: { type: 'string' },
          tiers: { type: 'array', items: { type: 'array', items: { type: 'string' } } },
          message: { type: 'string' },
        },
        required: ['root', 'tiers', 'message'],
        additionalProperties: false,
      },
    ],
  },
  create(context) {
    const { root, tiers, message } = context.options[0];
    const tierOf = new Map(tiers.flatMap((folders, tier) => folders.map((folder) => [folder, tier])));
    const folderOf = (file) => {
      const rel = path.relative(path.resolve(context.cwd, root), file).split(path.sep);
      return rel.length > 1 && rel[0] !== '..' ? rel[0] : undefined;
    };
    const from = folderOf(context.filename);
    if (from === undefined) return {};
    const check = (node) => {
      const source = node?.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const to = folderOf(path.resolve(path.dirname(context.filename), source));
      if (to === undefined || to === from) return;
      const [a, b] = [tierOf.get(from), tierOf.get(to)];
      if (a !== undefined && b !== undefined && b < a) return;
      const why =
        a === undefined || b === undefined
          ? `${a === undefined ? from : to} has no tier`
          : b === a
            ? `${from} and ${to} share a tier`
            : `${to} sits above ${from}`;
      context.report({ node, message: `${message} (${from} imports ${to}: ${why})` });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};
const uproot = { rules: { 'imports-within': importsWithin, 'layer-order': layerOrder } };

/**
 * The order inside src/core, lowest first (docs/library.md, "Inside core"): the model is the floor; each tier
 * builds on the ones below it only. A type two rooms share moves down to the model.
 */
const CORE_TIERS = [
  ['model'],
  ['scheduling', 'kubernetes-version', 'leader-migration'],
  ['ccm'],
  ['cloud-config', 'iam'],
  ['distros'],
  ['checks'],
  ['ownership', 'plan', 'snapshot'],
  ['fleet'],
];

const UPROOT = 'packages/uproot/src';
const SANDBOX = 'packages/sandbox/src';

/** Tests and their helpers may read files, throw plain errors and use the sandbox. */
const TEST_FILES = [
  '**/*.test.ts',
  '**/test-support/**',
  '**/*-test-support.ts',
  '**/fixtures/**',
  '**/testing/**',
];

const NO_SANDBOX = {
  group: ['**/sandbox/**', '@uproot/sandbox', '@uproot/sandbox/*'],
  message:
    'uproot never imports the sandbox package: the CLI loads @uproot/sandbox/cli by name at run time (src/cli/sandbox-commands.ts).',
};

const IO_MODULES = ['fs', 'fs/promises', 'http', 'https', 'net', 'child_process', 'os']
  .flatMap((m) => [m, `node:${m}`])
  .concat(['undici']);

/** Typed errors only: an UprootError subclass with a code (InternalError for what should not happen). */
const NO_PLAIN_ERROR = {
  selector: "ThrowStatement > NewExpression[callee.name='Error']",
  message: 'Throw an UprootError subclass with a code (uproot\u2019s src/errors); InternalError for a bug.',
};

/**
 * Image references are parsed in one place, src/core/model/image-reference.ts (distribution/reference's
 * grammar; exported by uproot/core): no `image.split('@')`, `ref.lastIndexOf(':')`, `(c.image ?? '').split(':')`
 * on a value named like an image or a reference. Each hand parser was a different guess at ports and digests.
 */
const IMAGE_NAME = '/image|ref(erence)?$/i';
const IMAGE_PARSING = [
  'callee.object.name',
  'callee.object.property.name',
  'callee.object.left.name',
  'callee.object.left.property.name',
].map((operand) => ({
  selector: `CallExpression[callee.property.name=/^(split|indexOf|lastIndexOf)$/][arguments.0.value=/^[:@]$/][${operand}=${IMAGE_NAME}]`,
  message:
    'Parse image references with parseImageReference / imageTag / withImageTag (src/core/model/image-reference.ts, uproot/core), not by hand.',
}));

const LAYERS_ABOVE_CORE = [
  '**/engine/**',
  '**/adapters/**',
  '**/toolkit/**',
  '**/cli/**',
  '**/kube-http/**',
  '**/report/**',
];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'coverage/**', '.sandbox/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Only the CLI entry decides the exit code.
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'exit',
          message: 'Return an exit code; only packages/uproot/src/cli/main.ts sets it.',
        },
      ],
      'no-console': 'error',
    },
  },
  // --- The shape of the code (docs/decisions/0001-shape-of-uproot.md) ---------------------------------------
  {
    files: [`${UPROOT}/**/*.ts`, `${SANDBOX}/**/*.ts`],
    ignores: TEST_FILES,
    rules: {
      'no-restricted-syntax': ['error', NO_PLAIN_ERROR, ...IMAGE_PARSING],
      // Functions a reader can hold: none over 120 lines, every line counted. A function that only returns
      // a data table says so beside it: `// eslint-disable-next-line max-lines-per-function -- data table`.
      'max-lines-per-function': [
        'error',
        { max: 120, skipBlankLines: false, skipComments: false, IIFEs: true },
      ],
    },
  },
  {
    // The one image-reference parser may take references apart.
    files: [`${UPROOT}/core/model/image-reference.ts`],
    rules: { 'no-restricted-syntax': ['error', NO_PLAIN_ERROR] },
  },
  {
    // Nothing in uproot imports the sandbox, tests included: the sandbox depends on uproot, never the reverse.
    files: [`${UPROOT}/**/*.ts`],
    rules: { 'no-restricted-imports': ['error', { patterns: [NO_SANDBOX] }] },
  },
  {
    // The pure core: no I/O, no Kubernetes or AWS clients, nothing from the layers above it.
    files: [`${UPROOT}/core/**/*.ts`],
    ignores: TEST_FILES,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: IO_MODULES.map((name) => ({ name, message: 'src/core is pure: I/O comes in as data.' })),
          patterns: [
            NO_SANDBOX,
            {
              group: ['@aws-sdk/*', '@kubernetes/client-node', '@kubernetes/*'],
              message: 'src/core is pure: the SDKs and client-node belong in src/adapters.',
            },
            {
              group: LAYERS_ABOVE_CORE,
              message: 'src/core imports nothing from the layers above it (engine, adapters, toolkit, cli).',
            },
            {
              group: [
                '**/election/*',
                '!**/election/model',
                '**/election/model/*',
                '!**/election/model/index.js',
              ],
              message:
                'src/core builds on election\u2019s model only (src/election/model/index.ts): the rest of election does I/O.',
            },
          ],
        },
      ],
    },
  },
  {
    // The floor of core imports nothing else of core (election's model is below core).
    files: [`${UPROOT}/core/model/**/*.ts`],
    plugins: { uproot },
    rules: {
      'uproot/imports-within': [
        'error',
        {
          root: `${UPROOT}/core/model`,
          entries: [`${UPROOT}/election/model/index.ts`, `${UPROOT}/errors/index.ts`],
          message:
            'src/core/model is the floor of core: it imports nothing of core, only election\u2019s model and errors',
        },
      ],
    },
  },
  {
    // Inside core, rooms lean one way: a folder imports only the tiers below it.
    files: [`${UPROOT}/core/**/*.ts`],
    ignores: TEST_FILES,
    plugins: { uproot },
    rules: {
      'uproot/layer-order': [
        'error',
        {
          root: `${UPROOT}/core`,
          tiers: CORE_TIERS,
          message: 'src/core keeps its inner order (eslint.config.js CORE_TIERS, docs/library.md)',
        },
      ],
    },
  },
  {
    // The engine declares what it needs in src/engine/ports.ts; the adapters implement it.
    files: [`${UPROOT}/engine/**/*.ts`],
    ignores: TEST_FILES,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            NO_SANDBOX,
            {
              group: [
                '**/adapters/**',
                '**/toolkit/**',
                '**/cli/**',
                '@aws-sdk/*',
                '@kubernetes/client-node',
              ],
              message: 'src/engine imports no adapter: declare the need in src/engine/ports.ts.',
            },
          ],
        },
      ],
    },
  },
  {
    // The sandbox package imports uproot by its package name, so only through its public entries (package.json
    // `exports`: uproot, uproot/core, uproot/election, uproot/election/testing, uproot/cli); never a relative
    // path out of its own package.
    files: [`${SANDBOX}/**/*.ts`],
    plugins: { uproot },
    rules: {
      'uproot/imports-within': [
        'error',
        {
          root: 'packages/sandbox',
          entries: [],
          message:
            'packages/sandbox imports uproot by name only (uproot, uproot/core, uproot/election, uproot/election/testing, uproot/cli), never by a path into packages/uproot',
        },
      ],
    },
  },
  {
    // Election is a library of its own: nothing of uproot's but the clock and the error classes.
    files: [`${UPROOT}/election/**/*.ts`],
    plugins: { uproot },
    rules: {
      'uproot/imports-within': [
        'error',
        {
          root: `${UPROOT}/election`,
          entries: [`${UPROOT}/clock/index.ts`, `${UPROOT}/errors/index.ts`],
          message: 'src/election imports nothing of uproot\u2019s but src/clock and src/errors',
        },
      ],
    },
  },
  {
    // The CLI stands on the toolkit (which exports what the CLI prints: src/toolkit/documents.ts), the errors,
    // the clock and core's public index; never on the engine, the adapters or a core folder (issue 26).
    files: [`${UPROOT}/cli/**/*.ts`],
    plugins: { uproot },
    rules: {
      'uproot/imports-within': [
        'error',
        {
          root: `${UPROOT}/cli`,
          // The sandbox has its own guard (NO_SANDBOX).
          scope: UPROOT,
          folders: [`${UPROOT}/toolkit`],
          entries: [
            `${UPROOT}/errors/index.ts`,
            `${UPROOT}/clock/index.ts`,
            `${UPROOT}/core/index.ts`,
            `${UPROOT}/version.ts`,
          ],
          message:
            'src/cli imports only src/toolkit, src/errors, src/clock, src/core/index.ts and src/version.ts (what it prints comes through src/toolkit/documents.ts)',
        },
      ],
    },
  },
  {
    files: [`${UPROOT}/cli/main.ts`, 'bench/**', 'scripts/**'],
    rules: { 'no-console': 'off', 'no-restricted-properties': 'off' },
  },
  {
    files: ['**/*.test.ts', 'test/**'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off', 'no-console': 'off' },
  },
);
