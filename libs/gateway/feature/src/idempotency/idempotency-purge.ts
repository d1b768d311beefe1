import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { IDEMPOTENCY_PURGE_INTERVAL_MS } from '@pay/kernel';
import { IdempotencyStore } from './idempotency';

/** Deletes expired idempotency keys once an hour while the gateway runs. */
@Injectable()
export class IdempotencyPurge implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('gateway');
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly store: IdempotencyStore) {}

  onModuleInit(): void {
    this.timer = setInterval(() => {
      this.store.purgeExpired().catch((error: unknown) => this.logger.warn(`idempotency purge failed: ${String(error)}`));
    }, IDEMPOTENCY_PURGE_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }
}
