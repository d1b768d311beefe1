import { Controller, Get, HttpCode, Inject, Module } from '@nestjs/common';
import { ServiceError } from '@pay/contracts';
import type { Pool } from 'pg';
import { PG_POOL } from '@pay/platform';

/**
 * /health: the process is up and serving (contract section 1: `200 {"status":"ok"}` once the service
 * accepts requests). /ready: it can also reach PostgreSQL now (for load balancers and orchestrators).
 */
@Controller()
class HealthController {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  @Get('health')
  health(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @HttpCode(200)
  async ready(): Promise<{ status: 'ok' }> {
    try {
      await this.pool.query('SELECT 1');
      return { status: 'ok' };
    } catch {
      throw new ServiceError('service_unavailable', 'not ready: PostgreSQL is unreachable');
    }
  }
}

@Module({ controllers: [HealthController] })
export class HealthModule {}
