import { Module, type DynamicModule } from '@nestjs/common';
import { join } from 'node:path';
import { contextRuntime } from '@pay/event-store';
import type { MigrationSet } from '@pay/platform';
import { cashContext } from './cash.context';
import type { CashConfig } from './cash-payments.service';

export type { CashConfig } from './cash-payments.service';

export const CASH_MIGRATIONS: MigrationSet = { name: 'cash', dir: join(__dirname, '..', 'migrations') };

@Module({})
export class CashModule {
  static forRoot(config: CashConfig): DynamicModule {
    return { module: CashModule, providers: [contextRuntime((infra) => cashContext(infra, config))] };
  }
}
