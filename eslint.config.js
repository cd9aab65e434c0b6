import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The boundaries between the layers (docs/architecture.md): what each part of `src` may not
 * import. One entry per folder; a file gets the rules of every entry whose folder holds it, merged
 * here because ESLint lets the last config that sets a rule replace its options.
 */
export const forbiddenImports = [
  {
    folder: 'src/platform',
    patterns: ['**/workflow/**', '**/records/**', '**/worker/**'],
    message: 'platform code serves both services and imports neither',
  },
  {
    folder: 'src/records',
    patterns: ['**/workflow/**'],
    message: 'the records service never imports the workflow service',
  },
  {
    folder: 'src/workflow',
    patterns: ['**/records/**'],
    message: 'the workflow service never imports the records service',
  },
  ...['model', 'runtime', 'schedule'].map((layer) => ({
    folder: `src/workflow/engine/${layer}`,
    patterns: ['pg', 'pg/**', '**/platform/database/**', '**/engine/store/**', '**/engine/driver/**'],
    message: 'the engine model, runtime and schedule are pure: no database',
  })),
  {
    folder: 'src/lib',
    patterns: ['**/workflow/**', '**/records/**', '**/platform/**', '**/worker/**'],
    message: 'a library in src/lib imports nothing of weft',
  },
  {
    folder: 'src/worker',
    patterns: ['**/workflow/**', '**/records/**', '**/platform/**'],
    message: 'the published worker client imports nothing of the services',
  },
];

/** The `no-restricted-imports` config of each folder, with the rules of the folders above it. */
export const boundaryConfigs = forbiddenImports.map(({ folder }) => ({
  files: [`${folder}/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: forbiddenImports
          .filter((outer) => folder === outer.folder || folder.startsWith(`${outer.folder}/`))
          .map(({ patterns, message }) => ({ group: patterns, message })),
      },
    ],
  },
}));

/** Barrels name what they export, so a reader (and the import graph) sees what a folder offers. */
export const namedBarrels = {
  files: ['src/**/*.ts'],
  rules: {
    'no-restricted-syntax': [
      'error',
      { selector: 'ExportAllDeclaration', message: 'name the exports: no `export *` in barrels' },
    ],
  },
};

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.weft/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['test', 'describe', 'it', 'suite', 'before', 'after'],
            },
          ],
        },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  ...boundaryConfigs,
  namedBarrels,
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // `response.json() as Shape` reads better in assertions than a type argument.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // The CEL engine forked from cel-js (src/lib/cel-engine/README.md) keeps upstream's style, so
    // our changes stay comparable with upstream's; its typings are upstream's hand-written `.d.ts`.
    files: ['src/lib/cel-engine/**'],
    languageOptions: {
      globals: { Buffer: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', btoa: 'readonly' },
    },
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    rules: {
      'no-empty': 'off',
      'no-case-declarations': 'off',
      'no-constant-binary-expression': 'off',
      'no-useless-assignment': 'off',
      '@typescript-eslint/no-unused-vars': 'off',
      '@typescript-eslint/no-unused-expressions': 'off',
      '@typescript-eslint/no-this-alias': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-function-type': 'off',
      '@typescript-eslint/consistent-type-imports': 'off',
    },
  },
);
