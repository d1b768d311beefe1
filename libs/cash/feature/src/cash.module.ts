import { Inject, Injectable, Module, type DynamicModule, type OnModuleInit } from '@nestjs/common';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import type { OffsetClock } from '@pay/kernel';
import { CLOCK, PG_POOL, type MigrationSet } from '@pay/platform';
import { CashPointsStore } from './cash-points.store';

export const CASH_MIGRATIONS: MigrationSet = { name: 'cash', dir: join(__dirname, '..', 'migrations') };

export interface CashConfig {
  publicBaseUrl: string;
}
const CASH_CONFIG = Symbol('CashConfig');

/** The cash app: cash points (and, with the cash checkout issue, cash payments). */
@Injectable()
class CashRuntime implements OnModuleInit {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: OffsetClock,
    @Inject(CASH_CONFIG) readonly config: CashConfig,
  ) {}

  onModuleInit(): void {
    const cashPoints = new CashPointsStore(this.pool);
    this.bus.handle('cash.cash-points.create', (request) => cashPoints.create(request, this.clock.now()));
    this.bus.handle('cash.cash-points.list', ({ limit }) => cashPoints.list(limit));
    this.bus.handle('cash.apply-deadlines', async ({ clockOffsetMs }) => {
      this.clock.observeOffset(clockOffsetMs);
      return { applied: 0 };
    });
  }
}

@Module({})
export class CashModule {
  static forRoot(config: CashConfig): DynamicModule {
    return { module: CashModule, providers: [{ provide: CASH_CONFIG, useValue: config }, CashRuntime] };
  }
}
