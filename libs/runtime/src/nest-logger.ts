import type { LoggerService } from '@nestjs/common';
import { Logger as PinoNestLogger, PinoLogger } from 'nestjs-pino';
import type { Logger as Pino } from 'pino';

/**
 * Nest's own logging (every `new Logger(context)` of the apps, the framework's, Kafka's) through
 * nestjs-pino into this host's pino logger: one JSON line each, `context` naming the component.
 *
 * nestjs-pino's request middleware (pino-http) is not mounted: the request line is written by the
 * Fastify hook in request-observability.ts, which knows the route pattern rather than the raw URL,
 * and the request's ids reach every line through the log context (which also crosses the bus), not
 * through a child logger made per request.
 */
export function nestLoggerOver(pino: Pino): LoggerService {
  return new HostNestLogger(new HostPinoLogger(pino), {});
}

/** nestjs-pino's PinoLogger falls back to the first logger made in the process; this one always writes to its host's. */
class HostPinoLogger extends PinoLogger {
  constructor(private readonly pino: Pino) {
    super({ pinoHttp: { logger: pino } });
  }

  override get logger(): Pino {
    return this.pino;
  }
}

/** What the framework says while it starts (modules initialised, every route mapped): debug, not info. */
const FRAMEWORK_START_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

class HostNestLogger extends PinoNestLogger {
  override log(message: unknown, ...optionalParams: unknown[]): void {
    const context = optionalParams.at(-1);
    if (typeof context === 'string' && FRAMEWORK_START_CONTEXTS.has(context)) super.debug(message, ...optionalParams);
    else super.log(message, ...optionalParams);
  }
}
