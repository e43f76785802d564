// The linter of the house (`npm run lint`, run by CI before the tests): typescript-eslint's recommended rules without
// type information (fast), held to what the code follows. Formatting is not its business.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'data/', '.ci/out/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A name that starts with `_` is left unused on purpose (a rest sibling dropped, a parameter a signature needs).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // The admin console (React): the rules of hooks.
    files: ['src/admin-ui/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
  {
    // Plain CommonJS scripts run by node before anything is compiled (`npm start`'s build check).
    files: ['scripts/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', process: 'readonly', __dirname: 'readonly', __filename: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests walk answers as plain JSON, and probe edge values (numbers past double precision, odd escapes) on purpose.
    files: ['test/**/*.ts'],
    // Their older disable comments for those rules stay harmless.
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-require-imports': 'off',
      '@typescript-eslint/no-unsafe-function-type': 'off',
      'no-loss-of-precision': 'off',
      'no-useless-escape': 'off',
      'prefer-const': 'off',
    },
  },
);
