import { CASH_MIGRATIONS, CashModule } from '@pay/cash-feature';
import { COLLECTIONS_MIGRATIONS, CollectionsModule } from '@pay/collections-feature';
import { GATEWAY_MIGRATIONS, GatewayModule } from '@pay/gateway-feature';
import { LEDGER_MIGRATIONS, LedgerModule } from '@pay/ledger-feature';
import { PAYMENTS_MIGRATIONS, paymentsConfig, PaymentsModule } from '@pay/payments-feature';
import type { LogDestination, LogLevelName } from '@pay/observability';
import { startInfrastructure, startNestHost } from '@pay/runtime';
import { SUPPLIER_PAYMENTS_MIGRATIONS, SupplierPaymentsModule } from '@pay/supplier-payments-feature';
import { WEBHOOKS_MIGRATIONS, WebhooksModule } from '@pay/webhooks-feature';
import type { ServiceConfig } from './config';

export interface RunningService {
  /** The listening origin, e.g. http://127.0.0.1:3000 */
  url: string;
  adminApiKey: string;
  databaseUrl: string;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /** Overrides LOG_LEVEL (the e2e tests keep to errors). */
  logLevel?: LogLevelName;
  /** Where the JSON log lines go instead of stdout (the e2e tests read them). */
  logDestination?: LogDestination;
}

/**
 * The embedded default: every app in one process over the in-process bus, on one PostgreSQL (embedded
 * under DATA_DIR unless DATABASE_URL names one). The apps stay separate modules that meet only on the bus.
 */
export async function startService(config: ServiceConfig, options: ServiceOptions = {}): Promise<RunningService> {
  const infrastructure = await startInfrastructure(config.host, {
    app: 'all-in-one',
    migrations: [
      LEDGER_MIGRATIONS,
      GATEWAY_MIGRATIONS,
      PAYMENTS_MIGRATIONS,
      WEBHOOKS_MIGRATIONS,
      CASH_MIGRATIONS,
      SUPPLIER_PAYMENTS_MIGRATIONS,
      ...COLLECTIONS_MIGRATIONS,
    ],
  });
  try {
    const host = await startNestHost({
      name: 'all-in-one',
      infrastructure,
      modules: [
        LedgerModule.forRoot({ feeSchedule: config.feeSchedule, signingKey: config.ledgerSigningKey }),
        WebhooksModule.forRoot({ sandbox: config.host.sandbox }),
        PaymentsModule.forRoot(paymentsConfig(config.host)),
        CashModule.forRoot({ publicBaseUrl: config.host.publicBaseUrl }),
        SupplierPaymentsModule.forRoot({ publicBaseUrl: config.host.publicBaseUrl }),
        CollectionsModule.forRoot({ publicBaseUrl: config.host.publicBaseUrl }),
        GatewayModule.forRoot(config.gateway),
      ],
      config: { ...config.host, logLevel: options.logLevel ?? config.host.logLevel },
      ...(options.logDestination ? { logDestination: options.logDestination } : {}),
    });
    return { url: host.url, adminApiKey: config.gateway.adminApiKey, databaseUrl: infrastructure.databaseUrl, stop: host.stop };
  } catch (error) {
    await infrastructure.stop().catch(() => undefined);
    throw error;
  }
}
