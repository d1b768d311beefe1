import type { Provider, Type } from '@nestjs/common';
import type { Pool } from 'pg';
import { PG_POOL, PG_POOL_ASYNC_COMMIT } from '@pay/platform';
import { GATEWAY_CONFIG, type GatewayConfig } from '../gateway.config';
import { ConsoleAccountsController } from './accounts.controller';
import { ConsoleFinance } from './console-finance';
import { ConsoleFinanceController } from './finance.controller';
import { ConsoleAssetsController } from './assets.controller';
import { ConsolePages } from './console-pages';
import { ConsoleErrorPages, ConsoleGuard } from './console-role';
import { ConsoleSearch } from './console-search';
import { ConsoleSessionStore } from './console-sessions';
import { ConsoleSignInController } from './sign-in.controller';
import { ConsoleSearchController } from './search.controller';
import { ConsoleObjects } from './console-objects';
import { ConsoleObjectsController } from './objects.controller';
import { ConsoleNotFoundController } from './not-found.controller';
import { ConsoleOperationsController } from './operations.controller';

/** The back office console's routes (/console), registered by the gateway; none of them is in the API description. */
export const CONSOLE_CONTROLLERS: Type[] = [ConsoleSignInController, ConsoleAssetsController, ConsoleSearchController, ConsoleObjectsController, ConsoleOperationsController, ConsoleAccountsController, ConsoleFinanceController, ConsoleNotFoundController];

export const consoleProviders: Provider[] = [
  {
    provide: ConsoleSessionStore,
    useFactory: (pool: Pool, config: GatewayConfig, asyncCommit: Pool) => new ConsoleSessionStore(pool, !config.sandbox, config.adminApiKey, asyncCommit),
    inject: [PG_POOL, GATEWAY_CONFIG, PG_POOL_ASYNC_COMMIT],
  },
  ConsolePages,
  ConsoleGuard,
  ConsoleErrorPages,
  ConsoleSearch,
  ConsoleObjects,
  ConsoleFinance,
];
