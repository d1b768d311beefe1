import { Module, type DynamicModule } from '@nestjs/common';
import { join } from 'node:path';
import { contextRuntime } from '@pay/event-store';
import type { MigrationSet } from '@pay/platform';
import { paymentsContext } from './payments.context';
import type { PaymentsConfig } from './payments.service';

export const PAYMENTS_MIGRATIONS: MigrationSet = { name: 'payments', dir: join(__dirname, '..', 'migrations') };

@Module({})
export class PaymentsModule {
  static forRoot(config: PaymentsConfig): DynamicModule {
    return { module: PaymentsModule, providers: [contextRuntime((infra) => paymentsContext(infra, config))] };
  }
}
