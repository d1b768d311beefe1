/**
 * `npm run test:distributed`: the end-to-end suites of every use case and of the hosted pages, unchanged,
 * against every app in its own process over Kafka (Apache Kafka started locally by tools/kafka; the mock
 * cluster where Java or Maven is missing, see docs/kafka.md), plus the fault tests of that topology.
 * Two files at a time on Apache Kafka, each starting seven Node processes: most of a suite's time is
 * spent waiting (a topology starting, consumer groups rebalancing, a rolling restart's replacements), not
 * computing, so two of them share a two-core machine well. One Kafka for the run (started by the global
 * setup; a node starts in 3 to 10 s), each suite's topics, groups and databases its own. On the mock
 * cluster (no Java), one at a time: its 50 ms idle fetches keep every consumer busy.
 */
require('./tools/register');
const { kafkaAvailability } = require('./tools/kafka/launcher');
const base = require('./jest.config');

/**
 * A suite's start (its beforeAll) starts the whole topology: seven processes one after another, or
 * with E2E_INSTANCES several per app, each joining its consumer groups (a rebalance each), so longer.
 */
const TEST_TIMEOUT_MS = 180_000;
const TEST_TIMEOUT_MS_SCALED_OUT = 900_000;

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testMatch: [
    '**/e2e/payments.e2e.spec.ts',
    '**/e2e/webhooks.e2e.spec.ts',
    '**/e2e/concurrency.e2e.spec.ts',
    '**/e2e/cash-payments.e2e.spec.ts',
    '**/e2e/supplier-payments.e2e.spec.ts',
    '**/e2e/collections.e2e.spec.ts',
    '**/e2e/hosted-pages.e2e.spec.ts',
    '**/e2e/hosted-agents.e2e.spec.ts',
    '**/e2e/hostile-input.e2e.spec.ts',
    '**/e2e/lists.e2e.spec.ts',
    '**/e2e/balances.e2e.spec.ts',
    '**/e2e/webhook-endpoints.e2e.spec.ts',
    '**/e2e/refunds.e2e.spec.ts',
    '**/e2e/payouts.e2e.spec.ts',
    '**/e2e/finance.e2e.spec.ts',
    '**/e2e/openapi.e2e.spec.ts',
    '**/e2e/reconciliation.e2e.spec.ts',
    '**/e2e/ledger-chain.e2e.spec.ts',
    '**/e2e/logs.e2e.spec.ts',
    '**/e2e/metrics.e2e.spec.ts',
    '**/e2e/ready.e2e.spec.ts',
    '**/e2e/operations.e2e.spec.ts',
    '**/e2e/api-keys.e2e.spec.ts',
    '**/e2e/audit.e2e.spec.ts',
    '**/e2e/database-outage.e2e.spec.ts',
    '**/e2e/edges.e2e.spec.ts',
    '**/e2e/hosted-session-reset.e2e.spec.ts',
    '**/*.distributed.spec.ts',
  ],
  testPathIgnorePatterns: ['/node_modules/'],
  setupFiles: ['<rootDir>/libs/testing/src/distributed-topology-env.js'],
  globalSetup: '<rootDir>/libs/testing/src/distributed-global-setup.js',
  globalTeardown: '<rootDir>/libs/testing/src/distributed-global-teardown.js',
  maxWorkers: process.env.KAFKA_BROKERS || kafkaAvailability().ok ? 2 : 1,
  testTimeout: process.env.E2E_INSTANCES ? TEST_TIMEOUT_MS_SCALED_OUT : TEST_TIMEOUT_MS,
};
