// @ts-check
// Type-checked: typescript-eslint's recommendedTypeChecked set (floating and misused promises, unsafe
// `any`, unnecessary assertions, …) on every TypeScript file, through the TypeScript project service.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'test/env/tools/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  { languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } } },
  prettier,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
      // Passing on what a promise rejected with or a catch caught, whatever it is, invents no non-Error.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/only-throw-error': ['error', { allowThrowingUnknown: true }],
    },
  },
  // Tests read what kubectl, Helm and the API server print (JSON.parse, YAML) as untyped values and judge
  // them with expect(): typing every such shape would restate the API's types in each test. Their fakes
  // implement async interfaces with bodies that need no await.
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/require-await': 'off',
      // expect(mock.method) hands vitest the mock to inspect; nothing calls it unbound.
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  // The scripts in JavaScript have no types to check.
  { files: ['**/*.js', '**/*.mjs', '**/*.cjs'], extends: [tseslint.configs.disableTypeChecked] },
);
