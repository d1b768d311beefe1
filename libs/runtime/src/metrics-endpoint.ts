import { timingSafeEqual } from 'node:crypto';
import { Controller, Get, Inject, Logger, Module, Req, Res, type DynamicModule } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '@pay/contracts';
import { CONFIGURED_SECRET_LENGTH_MAX } from '@pay/kernel';
import { METRICS_CONTENT_TYPE, renderMetrics } from '@pay/observability';

const METRICS_TOKEN = Symbol('MetricsToken');
/** A token longer than any configurable METRICS_TOKEN is no token; the scheme in any case (RFC 9110 11.1). */
const BEARER = new RegExp(`^Bearer (\\S{1,${CONFIGURED_SECRET_LENGTH_MAX}})$`, 'i');

/**
 * GET /metrics: Prometheus' text format, on every process's listener (the gateway's port, and each
 * other app's /health port). Not behind an integrator or admin key; with METRICS_TOKEN set it wants
 * that bearer token (docs/operations.md says why, and to keep the path off the public edge either way).
 */
@Controller()
class MetricsController {
  private readonly logger = new Logger('metrics');

  constructor(@Inject(METRICS_TOKEN) private readonly token: string | undefined) {}

  @Get('metrics')
  async metrics(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    if (this.token !== undefined) this.requireToken(request.headers.authorization, this.token);
    const text = await renderMetrics((name, error) => this.logger.warn(`scrape: ${name} left out: ${error instanceof Error ? error.message : String(error)}`));
    void reply.header('Content-Type', METRICS_CONTENT_TYPE);
    return text;
  }

  private requireToken(header: string | undefined, token: string): void {
    const given = Buffer.from(BEARER.exec(header ?? '')?.[1] ?? '');
    const expected = Buffer.from(token);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new ServiceError('authentication_required', 'GET /metrics wants Authorization: Bearer <METRICS_TOKEN>');
    }
  }
}

@Module({})
export class MetricsModule {
  static forRoot(token: string | undefined): DynamicModule {
    return { module: MetricsModule, controllers: [MetricsController], providers: [{ provide: METRICS_TOKEN, useValue: token }] };
  }
}
