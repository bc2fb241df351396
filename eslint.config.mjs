// @ts-check
import tseslint from 'typescript-eslint';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import { boundaries } from './scripts/eslint/boundaries.mjs';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      '.neo-cache/',
      'engine/generated/',
      'tests/fixtures/',
      'web/dist/',
      'examples/',
    ],
  },
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.mjs'],
    extends: [tseslint.configs.recommended],
    plugins: { 'import-x': importX, neo: boundaries },
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
      'import-x/resolver-next': [
        createNodeResolver({
          extensions: ['.ts', '.tsx', '.js', '.mjs'],
          extensionAlias: { '.js': ['.ts', '.tsx', '.js'] },
        }),
      ],
    },
    rules: {
      'neo/pure-imports': 'error',
      'neo/area-imports': 'error',
      // A sub-flow runs a flow: start-run and resume-run reach subflow statically, subflow reaches them back
      // through a lazy import(). That recursion is the feature; every static import graph stays acyclic.
      'import-x/no-cycle': ['error', { allowUnsafeDynamicCyclicDependency: true }],
      // A closure that reads a variable before its one assignment needs `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // `_name` marks a value dropped on purpose (a rest sibling, a positional argument).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true, caughtErrors: 'none' },
      ],
    },
  },
  {
    // Tests stub foreign shapes (fetch responses, SDK objects); `any` there is a test's business.
    files: ['tests/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
