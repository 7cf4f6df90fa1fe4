// Lint rules, including the layer boundaries of design.md: src/common is pure and isomorphic (no
// `node:` builtins, nothing from main or renderer); src/renderer never reaches into src/main.
import js from '@eslint/js';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

// Bare builtin names; `node:` specifiers are caught by the pattern below.
const nodeBuiltins = builtinModules.filter((m) => !m.startsWith('node:'));

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**', 'bench/results/**', 'tests/fixtures/**', '.scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-control-regex': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    files: ['src/common/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'src/common is isomorphic: no Node builtins.' })),
          patterns: [
            { group: ['node:*'], message: 'src/common is isomorphic: no Node builtins.' },
            { group: ['**/main/**', '**/main', '**/renderer/**', '**/renderer', '**/preload/**'], message: 'src/common imports nothing from main, renderer or preload.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/renderer/**'],
    ignores: ['src/renderer/**/*.test.ts', 'src/renderer/**/*.test.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'The renderer has no Node APIs; talk to main through the oRPC client.' })),
          patterns: [
            { group: ['node:*'], message: 'The renderer has no Node APIs.' },
            { group: ['**/main/**', '**/main', '**/preload/**'], message: 'The renderer never imports src/main; use the oRPC client.' },
          ],
        },
      ],
    },
  },
  {
    // Component tests run in Node with a real backend (tests/support wires it): they may check the
    // disk, but still never import src/main themselves.
    files: ['src/renderer/**/*.test.ts', 'src/renderer/**/*.test.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/main/**', '**/main', '**/preload/**'], message: 'Renderer tests reach the backend through tests/support, not src/main.' }] },
      ],
    },
  },
);
