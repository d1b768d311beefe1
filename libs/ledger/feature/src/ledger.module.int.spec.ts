import { Global, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { InProcessBus, MESSAGE_BUS } from '@pay/bus';
import { newId, systemClock } from '@pay/kernel';
import { DEFAULT_FEE_SCHEDULE } from '@pay/ledger-domain';
import { CLOCK, createPool, PG_POOL, runMigrations } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import { generateKeyPairSync } from 'node:crypto';
import { LEDGER_MIGRATIONS, LedgerModule, signingKey } from './index';

describe('LedgerModule', () => {
  it('given the host tokens and a fee schedule, answers the ledger topics on the bus', async () => {
    const url = await createTestDatabase('ledger_module');
    await runMigrations(url, [LEDGER_MIGRATIONS]);
    const pool = createPool(url, { max: 2, statementTimeoutMs: 10_000 });
    const bus = new InProcessBus();

    @Global()
    @Module({
      providers: [
        { provide: PG_POOL, useValue: pool },
        { provide: CLOCK, useValue: systemClock },
        { provide: MESSAGE_BUS, useValue: bus },
      ],
      exports: [PG_POOL, CLOCK, MESSAGE_BUS],
    })
    class HostModule {}

    @Module({ imports: [HostModule, LedgerModule.forRoot({ feeSchedule: DEFAULT_FEE_SCHEDULE, signingKey: signingKey(generateKeyPairSync('ed25519').privateKey) })] })
    class AppModule {}

    const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
    try {
      const owner = newId('customer');
      await expect(bus.request('ledger.open-account', { owner, kind: 'customer', currency: 'DZD' })).resolves.toMatchObject({ owner, available: 0 });
    } finally {
      await app.close();
      await bus.close();
      await pool.end();
    }
  });
});
