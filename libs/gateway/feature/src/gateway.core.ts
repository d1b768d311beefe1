import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Pool } from 'pg';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { ServiceError } from '@pay/contracts';
import type { Brand } from '@pay/hosted-ui';
import type { Currency, OffsetClock } from '@pay/kernel';
import { CLOCK, PG_POOL, PG_POOL_ASYNC_COMMIT, ServiceClockStore } from '@pay/platform';
import { AdminAuthenticator, ApiKeyAuthenticator } from './auth/auth';
import { RateLimiter } from './auth/rate-limiter';
import { DirectoryRepository, type ApiKeyRecord, type Connection } from './directory/directory.repository';
import { PeopleRepository } from './directory/people.repository';
import { HandoverCodes } from './hosted/handover-codes';
import { SessionStore } from './hosted/sessions';
import { SignInLimiter } from './hosted/sign-in-limiter';
import { IdempotencyStore } from './idempotency/idempotency';

export interface GatewayConfig {
  sandbox: boolean;
  adminApiKey: string;
  rateLimitPerSecond: number;
  publicBaseUrl: string;
  /** The platform's name and colour on the hosted pages (BRAND_NAME, BRAND_COLOR). */
  brand: Brand;
}
export const GATEWAY_CONFIG = Symbol('GatewayConfig');

const IDEMPOTENCY_PURGE_INTERVAL_MS = 60 * 60 * 1000;
const CONNECTION_CACHE_MAX = 10_000;

/** What every gateway controller needs: the directory, authentication, idempotency, the bus and the clock. */
@Injectable()
export class GatewayCore implements OnModuleInit, OnApplicationShutdown {
  readonly directory: DirectoryRepository;
  readonly idempotency: IdempotencyStore;
  readonly clockStore: ServiceClockStore;
  /** Hosted pages: sessions bound to their object, and sign-in attempts limited with lockout. */
  readonly sessions: SessionStore;
  readonly signIns: SignInLimiter;
  /** Business users and cash agents; the collections' handover codes. */
  readonly people: PeopleRepository;
  readonly handoverCodes: HandoverCodes;
  private readonly authenticator: ApiKeyAuthenticator;
  private readonly adminAuthenticator: AdminAuthenticator;
  private readonly logger = new Logger('gateway');
  private purgeTimer: NodeJS.Timeout | undefined;
  /** Connections never change once created: each is read from PostgreSQL once. */
  private readonly connections = new Map<string, Connection>();

  constructor(
    @Inject(PG_POOL) pool: Pool,
    /**
     * Idempotency rows are written with asynchronous commit, off the request's critical fsync: the
     * claim is made durable by the object's own (synchronous) append that follows it, and a lost
     * completion only makes a retry create the same object id again, which answers the existing object.
     */
    @Inject(PG_POOL_ASYNC_COMMIT) asyncCommitPool: Pool,
    @Inject(MESSAGE_BUS) readonly bus: MessageBus,
    @Inject(CLOCK) readonly clock: OffsetClock,
    @Inject(GATEWAY_CONFIG) readonly config: GatewayConfig,
  ) {
    this.directory = new DirectoryRepository(pool);
    this.idempotency = new IdempotencyStore(asyncCommitPool);
    this.clockStore = new ServiceClockStore(pool);
    this.sessions = new SessionStore(pool);
    this.signIns = new SignInLimiter(pool);
    this.people = new PeopleRepository(pool);
    this.handoverCodes = new HandoverCodes(pool);
    this.authenticator = new ApiKeyAuthenticator(this.directory, new RateLimiter(config.rateLimitPerSecond));
    this.adminAuthenticator = new AdminAuthenticator(config.adminApiKey, this.directory);
  }

  onModuleInit(): void {
    this.purgeTimer = setInterval(() => {
      this.idempotency.purgeExpired().catch((error: unknown) => this.logger.warn(`idempotency purge failed: ${String(error)}`));
    }, IDEMPOTENCY_PURGE_INTERVAL_MS);
    this.purgeTimer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.purgeTimer);
  }

  authenticate(request: FastifyRequest, reply: FastifyReply): Promise<ApiKeyRecord> {
    return this.authenticator.authenticate(request, reply);
  }

  /** The admin key; a finance key is 403 forbidden here. */
  authenticateAdmin(request: FastifyRequest): Promise<void> {
    return this.adminAuthenticator.admin(request);
  }

  /** The ledger's reads: the admin key or a finance key. */
  authenticateFinance(request: FastifyRequest): Promise<void> {
    return this.adminAuthenticator.financeOrAdmin(request);
  }

  forgetKey(keyId: string): void {
    this.authenticator.forget(keyId);
  }

  /** The named connection must exist and belong to the caller (else connection_not_authorized). */
  async authorizedConnection(integratorId: string, connectionId: string, param: string): Promise<Connection> {
    const connection = this.connections.get(connectionId) ?? (await this.directory.findConnection(connectionId));
    if (connection && !this.connections.has(connectionId)) {
      if (this.connections.size >= CONNECTION_CACHE_MAX) this.connections.clear();
      this.connections.set(connectionId, connection);
    }
    if (!connection || connection.integratorId !== integratorId) {
      throw new ServiceError('connection_not_authorized', `connection '${connectionId}' is not connected to your account`, param);
    }
    return connection;
  }

  requireCurrency(connection: Connection, currency: Currency): void {
    if (connection.currency !== currency) {
      throw new ServiceError('currency_mismatch', `connection ${connection.id} holds ${connection.currency}, not ${currency}`, 'currency');
    }
  }
}
