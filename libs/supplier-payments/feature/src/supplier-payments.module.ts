import { Inject, Injectable, Module, type DynamicModule, type OnModuleInit } from '@nestjs/common';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { notFound } from '@pay/contracts';
import type { OffsetClock } from '@pay/kernel';
import { CLOCK, PG_POOL, type MigrationSet } from '@pay/platform';
import { BeneficiariesStore, toAdminBeneficiaryResource } from './beneficiaries.store';

export const SUPPLIER_PAYMENTS_MIGRATIONS: MigrationSet = { name: 'supplier_payments', dir: join(__dirname, '..', 'migrations') };

export interface SupplierPaymentsConfig {
  publicBaseUrl: string;
}
const SUPPLIER_PAYMENTS_CONFIG = Symbol('SupplierPaymentsConfig');

/** The supplier-payments app: beneficiaries (and, with the supplier payments issue, the payments to them). */
@Injectable()
class SupplierPaymentsRuntime implements OnModuleInit {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: OffsetClock,
    @Inject(SUPPLIER_PAYMENTS_CONFIG) readonly config: SupplierPaymentsConfig,
  ) {}

  onModuleInit(): void {
    const beneficiaries = new BeneficiariesStore(this.pool);
    this.bus.handle('supplier-payments.beneficiaries.create', async (request) => {
      // The account first: a crash in between leaves an unused account, never a beneficiary without one.
      await this.bus.request('ledger.open-account', { owner: request.beneficiaryId, kind: 'beneficiary', currency: request.currency });
      return toAdminBeneficiaryResource(await beneficiaries.create(request, this.clock.now()));
    });
    this.bus.handle('supplier-payments.beneficiaries.revoke', async ({ beneficiaryId }) => {
      const revoked = await beneficiaries.revoke(beneficiaryId, this.clock.now());
      if (!revoked) throw notFound('beneficiary', beneficiaryId);
      return toAdminBeneficiaryResource(revoked);
    });
    this.bus.handle('supplier-payments.apply-deadlines', async ({ clockOffsetMs }) => {
      this.clock.observeOffset(clockOffsetMs);
      return { applied: 0 };
    });
  }
}

@Module({})
export class SupplierPaymentsModule {
  static forRoot(config: SupplierPaymentsConfig): DynamicModule {
    return { module: SupplierPaymentsModule, providers: [{ provide: SUPPLIER_PAYMENTS_CONFIG, useValue: config }, SupplierPaymentsRuntime] };
  }
}
