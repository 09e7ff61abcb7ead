// @ts-check
/**
 * ESLint, run by `npm run lint` and by `npm test`: JavaScript's and typescript-eslint's recommended rules on all
 * the code of the repository. Layout is Prettier's (.prettierrc.json), so no rule here is about formatting.
 *
 * The type-aware rule sets are not on: they need the whole program typed first, which takes over a minute on
 * two cores (the typecheck of `npm test` checks the types). Each rule switched off or narrowed below says why:
 * the code's deliberate style, not findings left unfixed.
 */
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  globalIgnores(['dist/', 'coverage/', 'data/', 'docs/', 'patches/', '.tradeseal/', 'bench/results/', 'test/helpers/openapi-types.ts']),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    languageOptions: { globals: globals.node },
    rules: {
      // A name starting with `_` is unused on purpose: a field left out of a rest (`{ secret: _secret, ...shown }`), a parameter kept for its position.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      // A handler that refers to the server it belongs to reads a `let` assigned once the server is up.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // FIX messages are delimited by SOH (\x01) and terminal output carries escape sequences: the code matches them on purpose.
      'no-control-regex': 'off',
    },
  },
  {
    files: ['test/**', 'src/demo/**'],
    rules: {
      // Tests and the demo client read the services' JSON answers as a client does, untyped: the shape is what they check.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['test/**'],
    rules: {
      // Expected CLI output is written with its columns' literal padding.
      'no-regex-spaces': 'off',
      // Fixtures keep vendors' numbers as they print them, and hostile inputs go beyond 2^53 on purpose.
      'no-loss-of-precision': 'off',
    },
  },
);
