import { Controller, Get, HttpCode, Module, type DynamicModule, type Provider } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { MESSAGE_BUS } from '@pay/bus';
import { EVENT_STORE, PG_POOL } from '@pay/platform';
import { hostProbes, READINESS_PROBES, Readiness, type ReadyBody } from './readiness';

/**
 * /health: the process is up and serving (contract section 1: `200 {"status":"ok"}` once the service
 * accepts requests); nothing else is checked, so an outage elsewhere never gets the process restarted.
 * /ready: it can also serve now, its dependencies included (for load balancers, orchestrators and the
 * distributed launcher): see Readiness and docs/operations.md "Health".
 */
@Controller()
class HealthController {
  constructor(private readonly readiness: Readiness) {}

  @Get('health')
  health(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @HttpCode(200)
  ready(): Promise<ReadyBody> {
    return this.readiness.check();
  }
}

@Module({})
export class HealthModule {
  /** The host's: probes over the pool, bus and event store of its (global) infrastructure module. */
  static forHost(): DynamicModule {
    return HealthModule.withProbes({ provide: READINESS_PROBES, inject: [PG_POOL, MESSAGE_BUS, EVENT_STORE], useFactory: hostProbes });
  }

  /** Over any probes (a test's stand-ins). */
  static withProbes(probes: Provider): DynamicModule {
    return {
      module: HealthModule,
      // Terminus' own logger is off: a failing /ready is its 503 answer, logged with the request like any other.
      imports: [TerminusModule.forRoot({ logger: false })],
      controllers: [HealthController],
      providers: [probes, Readiness],
      exports: [Readiness],
    };
  }
}
