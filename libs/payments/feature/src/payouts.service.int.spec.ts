import type { Pool } from 'pg';
import { randomBytes } from 'node:crypto';
import { InProcessBus } from '@pay/bus';
import { AggregateRepository, EVENT_STORE_MIGRATIONS, PostgresEventStore, recordWith } from '@pay/event-store';
import { systemClock } from '@pay/kernel';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import { PAYMENTS_MIGRATIONS } from './payments.module';
import { payoutAggregate, payoutBatchAggregate } from './payout-events';
import { PayoutsService } from './payouts.service';

/** Bank statement imports over a real PostgreSQL. */
describe('PayoutsService bank statements', () => {
  const CONCURRENT = 6;
  let pool: Pool;
  let service: PayoutsService;

  beforeAll(async () => {
    const url = await createTestDatabase('payouts');
    await runMigrations(url, [EVENT_STORE_MIGRATIONS, PAYMENTS_MIGRATIONS]);
    pool = createPool(url, { max: CONCURRENT, statementTimeoutMs: 30_000 });
    const bus = new InProcessBus();
    const store = new PostgresEventStore(pool);
    service = new PayoutsService(
      new AggregateRepository(store, payoutAggregate, recordWith(bus)),
      new AggregateRepository(store, payoutBatchAggregate, recordWith(bus)),
      bus,
      pool,
      systemClock,
      10_000,
      async () => undefined,
    );
  });
  afterAll(() => pool?.end());

  it('one statement imported from several connections at once, many times: no error, exactly one import applies it, the others answer it as duplicate', async () => {
    const failures: string[] = [];
    const nonDuplicates: number[] = [];
    for (let round = 0; round < 100; round++) {
      const statementId = `STMT-RACE-${round}-${randomBytes(4).toString('hex')}`;
      const imports = await Promise.allSettled(
        Array.from({ length: CONCURRENT }, (_, copy) => service.importStatement({ statementId, importId: `bsi_race${round}x${copy}${randomBytes(4).toString('hex')}`, entries: [] })),
      );
      const rejected = imports.filter((outcome) => outcome.status === 'rejected');
      if (rejected.length > 0) failures.push(`round ${round}: ${String((rejected[0] as PromiseRejectedResult).reason).slice(0, 200)}`);
      const answers = imports.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
      // Every copy answers the one import of the statement; one applies it, the others answer its result.
      expect(new Set(answers.map((answer) => answer.id)).size).toBeLessThanOrEqual(1);
      if (answers.length === CONCURRENT) nonDuplicates.push(answers.filter((answer) => !answer.duplicate).length);
    }
    expect(failures).toEqual([]);
    expect(nonDuplicates).toEqual(Array.from({ length: 100 }, () => 1));
    const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM bank_statement_imports WHERE statement_id LIKE 'STMT-RACE-%'`);
    expect(rows[0]!.n).toBe(100);
  });

  it('an import that stopped half way (its row without a result, unlocked) is resumed under its id, then answered as duplicate', async () => {
    await pool.query(`INSERT INTO bank_statement_imports (statement_id, import_id) VALUES ('STMT-CRASHED', 'bsi_crashed1')`);
    const resumed = await service.importStatement({ statementId: 'STMT-CRASHED', importId: 'bsi_other1', entries: [] });
    expect(resumed).toMatchObject({ id: 'bsi_crashed1', duplicate: false });
    expect(await service.importStatement({ statementId: 'STMT-CRASHED', importId: 'bsi_other2', entries: [] })).toMatchObject({ id: 'bsi_crashed1', duplicate: true });
  });
});
