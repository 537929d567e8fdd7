// @ts-check
// One lint configuration for the TypeScript and the JavaScript of the repository: ESLint's and
// typescript-eslint's recommended rules; Prettier owns the layout (eslint-config-prettier turns off
// the rules that would fight it). `npm run lint:code` runs it with --max-warnings 0 in `npm test`.
// Not type-aware: recommendedTypeChecked took 3 min 40 s on the project's 2-core machine.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['dist/**', '.cache/**', 'node_modules/**', 'test-results/**', 'test/fixtures/**', 'bench/results/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: globals.node } },
  {
    rules: {
      // a leading underscore says "unused on purpose": a parameter kept for its position, a key
      // destructured out so that the rest goes on without it
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // `let timer; … () => clearInterval(timer) …; timer = setInterval(…)`: a closure made before
      // the value exists reads it later; and `let { child, port } = …` where only child changes
      'prefer-const': ['error', { destructuring: 'all', ignoreReadBeforeAssign: true }],
    },
  },
  {
    // the channel page runs in a browser; the UI flows pass callbacks to page.evaluate()
    files: ['relay/web/**', 'test/e2e/**'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    // plain CommonJS with no build step: a preload (-r) and the harness's own mocha suite
    files: ['**/*.cjs', 'test/integration/harness-smoke/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node, ...globals.mocha } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
