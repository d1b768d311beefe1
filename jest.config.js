/** One jest run over every project: unit, integration (real PostgreSQL) and e2e (real HTTP) specs. */
const { pathsToModuleNameMapper } = require('./tools/jest-paths');

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/tools', '<rootDir>/examples'],
  testMatch: ['**/*.spec.ts'],
  // Fault tests of the distributed topology run with `npm run test:distributed`.
  testPathIgnorePatterns: ['/node_modules/', '\\.distributed\\.spec\\.ts$'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  moduleNameMapper: pathsToModuleNameMapper(),
  globalSetup: '<rootDir>/libs/testing/src/jest-global-setup.js',
  globalTeardown: '<rootDir>/libs/testing/src/jest-global-teardown.js',
  // Every test's bound: generous, as a test waits for outcomes on a two-core machine that may be busy
  // (a fresh clone's run beside other work); a passing test takes no longer for it.
  testTimeout: 180_000,
  maxWorkers: 2,
};
