import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.sandbox/**'] },
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
          message: 'Return an exit code; only src/cli/main.ts sets it.',
        },
      ],
      'no-console': 'error',
    },
  },
  {
    files: ['src/cli/main.ts', 'bench/**', 'scripts/**'],
    rules: { 'no-console': 'off', 'no-restricted-properties': 'off' },
  },
  {
    files: ['**/*.test.ts', 'test/**'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off', 'no-console': 'off' },
  },
);
