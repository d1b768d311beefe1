import { Logger, type Provider, type Type } from '@nestjs/common';
import type { Pool } from 'pg';
import type { Clock } from '@pay/kernel';
import { CLOCK, PG_POOL, PG_POOL_ASYNC_COMMIT, ServiceClockStore } from '@pay/platform';
import { AuditInterceptor } from './audit/audited';
import { ApiKeysRepository } from './directory/api-keys.repository';
import { AuditLog } from './directory/audit-log';
import { AdminAuthenticator, ApiKeyAuthenticator, LastUses } from './auth/auth';
import { PostgresBuckets, RateLimiter } from './auth/rate-limiter';
import { ConnectionAuthorization } from './directory/connection-authorization';
import { DirectoryRepository } from './directory/directory.repository';
import { PeopleRepository } from './directory/people.repository';
import { GATEWAY_CONFIG, type GatewayConfig } from './gateway.config';
import { AgentReads } from './hosted/agent/agent-reads';
import { AgentSessions } from './hosted/agent/agent-sessions';
import { AgentViews } from './hosted/agent/agent-views';
import { HandoverCodes } from './hosted/stores/handover-codes';
import { SessionStore } from './hosted/stores/sessions';
import { SignInLimiter } from './hosted/stores/sign-in-limiter';
import { SignInAttempts } from './hosted/stores/sign-in-attempts';
import { HostedPages } from './hosted/views/hosted-pages';
import { IdempotencyStore } from './idempotency/idempotency';
import { IdempotencyPurge } from './idempotency/idempotency-purge';
import { AuditSweeper } from './audit/audit-sweeper';

/** A store of the gateway's tables, on the shared pool. */
const onPool = <T>(store: new (pool: Pool) => T, pool: symbol | string = PG_POOL): Provider => ({
  provide: store as Type<T>,
  useFactory: (given: Pool) => new store(given),
  inject: [pool],
});

/** Each collaborator a controller or guard injects, one provider each (singletons of the module). */
export const gatewayProviders = (config: GatewayConfig): Provider[] => [
  { provide: GATEWAY_CONFIG, useValue: config },
  onPool(DirectoryRepository),
  onPool(PeopleRepository),
  onPool(SessionStore),
  onPool(SignInLimiter),
  onPool(SignInAttempts),
  onPool(HandoverCodes),
  onPool(ServiceClockStore),
  /** Claims commit synchronously, what follows a create asynchronously (see IdempotencyStore). */
  { provide: IdempotencyStore, useFactory: (claims: Pool, outcomes: Pool) => new IdempotencyStore(claims, outcomes), inject: [PG_POOL, PG_POOL_ASYNC_COMMIT] },
  IdempotencyPurge,
  /**
   * The per-key limits hold across gateways: every admitted request is debited to the key's bucket in
   * PostgreSQL (auth/rate-limiter.ts), on the asynchronous-commit pool: a debit lost in a crash only
   * gives the key a token back.
   */
  {
    provide: ApiKeyAuthenticator,
    useFactory: (directory: DirectoryRepository, pool: Pool, clock: Clock, lastUses: LastUses) => {
      const logger = new Logger('rate-limit');
      const limiter = new RateLimiter(config.rateLimitPerSecond, undefined, new PostgresBuckets(pool), (error) =>
        logger.warn(`shared rate-limit bucket not debited (this gateway's count stands): ${String(error)}`),
      );
      return new ApiKeyAuthenticator(directory, limiter, clock, lastUses);
    },
    inject: [DirectoryRepository, PG_POOL_ASYNC_COMMIT, CLOCK, LastUses],
  },
  onPool(ApiKeysRepository),
  onPool(AuditLog),
  AuditSweeper,
  /** Keys' last uses, written in batches on the asynchronous-commit pool: a crash loses at most one batch of a timestamp. */
  {
    provide: LastUses,
    useFactory: (pool: Pool) => {
      const logger = new Logger('api-keys');
      const writer = new ApiKeysRepository(pool);
      return new LastUses((uses) => writer.recordLastUses(uses), (error) => logger.warn(`last uses of API keys not written yet: ${String(error)}`));
    },
    inject: [PG_POOL_ASYNC_COMMIT],
  },
  AuditInterceptor,
  {
    provide: AdminAuthenticator,
    useFactory: (directory: DirectoryRepository, clock: Clock, lastUses: LastUses) => new AdminAuthenticator(config.adminApiKey, directory, clock, lastUses),
    inject: [DirectoryRepository, CLOCK, LastUses],
  },
  ConnectionAuthorization,
  HostedPages,
  AgentViews,
  AgentSessions,
  AgentReads,
];
