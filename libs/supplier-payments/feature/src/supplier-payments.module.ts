import { Module, type DynamicModule } from '@nestjs/common';
import { join } from 'node:path';
import { contextRuntime } from '@pay/event-store';
import type { MigrationSet } from '@pay/platform';
import { supplierPaymentsContext } from './supplier-payments.context';
import type { SupplierPaymentsConfig } from './supplier-payments.service';

export type { SupplierPaymentsConfig } from './supplier-payments.service';

export const SUPPLIER_PAYMENTS_MIGRATIONS: MigrationSet = { name: 'supplier_payments', dir: join(__dirname, '..', 'migrations') };

@Module({})
export class SupplierPaymentsModule {
  static forRoot(config: SupplierPaymentsConfig): DynamicModule {
    return { module: SupplierPaymentsModule, providers: [contextRuntime((infra) => supplierPaymentsContext(infra, config))] };
  }
}
