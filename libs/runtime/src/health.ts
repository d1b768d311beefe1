import { Controller, Get, HttpCode, Inject, Module, ServiceUnavailableException } from '@nestjs/common';
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
      throw new ServiceUnavailableException('the database is unreachable');
    }
  }
}

@Module({ controllers: [HealthController] })
export class HealthModule {}
