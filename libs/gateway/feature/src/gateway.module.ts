import { Module, type DynamicModule } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { join } from 'node:path';
import type { MigrationSet } from '@pay/platform';
// First: the DTOs' schemas in /openapi.json come in the order their classes load, CreatePaymentBody first.
import { PaymentsController } from './api/payments.controller';
import { AdminController } from './admin/admin.controller';
import { FinanceController } from './admin/finance.controller';
import { OperationsController } from './admin/operations.controller';
import { ReconciliationController } from './admin/reconciliation.controller';
import { BalancesController } from './api/balances.controller';
import { BeneficiariesController } from './api/beneficiaries.controller';
import { CashPaymentsController, CashPaymentsTestHelpersController } from './api/cash-payments.controller';
import { CashPaymentsHostedController } from './hosted/cash-payment-pages.controller';
import { CollectionsController, CollectionsTestHelpersController } from './api/collections.controller';
import { SupplierPaymentsController, SupplierPaymentsTestHelpersController } from './api/supplier-payments.controller';
import { RefundsController } from './api/refunds.controller';
import { BankAccountsController, PayoutsController } from './api/payouts.controller';
import { PayoutsAdminController } from './admin/payouts-admin.controller';
import { TestHelpersController } from './api/test-helpers.controller';
import { EventsController, WebhookEndpointsController } from './api/webhooks.controller';
import type { GatewayConfig } from './gateway.config';
import { gatewayProviders } from './gateway.providers';
import { PeopleController } from './admin/people.controller';
import { AgentAppController } from './hosted/agent/agent-app.controller';
import { AgentCashPaymentsController } from './hosted/agent/agent-cash-payments.controller';
import { AgentCollectionsController } from './hosted/agent/agent-collections.controller';
import { HostedAssetsController } from './hosted/assets.controller';
import { ApprovalPageController } from './hosted/approval-page.controller';
import { HandoverCodeController } from './hosted/handover.controller';
import { PaymentPageController } from './hosted/payment-page.controller';
import { ApiKeysController } from './api/api-keys.controller';
import { AdminAuditEventsController, AuditEventsController } from './api/audit-events.controller';
import { ApiDocsController, GATEWAY_CONTROLLERS } from './openapi/api-docs.controller';
import { CONSOLE_CONTROLLERS, consoleProviders } from './console/console.module';
import { UnknownQueryParameters } from './http/query-params';

export const GATEWAY_MIGRATIONS: MigrationSet = { name: 'gateway', dir: join(__dirname, '..', 'migrations') };

@Module({})
export class GatewayModule {
  static forRoot(config: GatewayConfig): DynamicModule {
    const controllers = [
      PaymentsController,
      RefundsController,
      BankAccountsController,
      PayoutsController,
      CashPaymentsController,
      CashPaymentsHostedController,
      SupplierPaymentsController,
      BeneficiariesController,
      BalancesController,
      CollectionsController,
      WebhookEndpointsController,
      EventsController,
      ApiKeysController,
      AuditEventsController,
      PaymentPageController,
      ApprovalPageController,
      AgentAppController,
      AgentCashPaymentsController,
      AgentCollectionsController,
      HostedAssetsController,
      HandoverCodeController,
      AdminController,
      FinanceController,
      ReconciliationController,
      PeopleController,
      OperationsController,
      PayoutsAdminController,
      AdminAuditEventsController,
      ...CONSOLE_CONTROLLERS,
      ...(config.sandbox
        ? [TestHelpersController, CashPaymentsTestHelpersController, SupplierPaymentsTestHelpersController, CollectionsTestHelpersController]
        : []),
      ApiDocsController,
    ];
    return {
      module: GatewayModule,
      controllers,
      providers: [...gatewayProviders(config), ...consoleProviders, { provide: GATEWAY_CONTROLLERS, useValue: controllers }, { provide: APP_INTERCEPTOR, useClass: UnknownQueryParameters }],
    };
  }
}
