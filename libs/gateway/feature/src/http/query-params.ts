import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';
import { ServiceError } from '@pay/contracts';
import { QUERY_PARAMS } from '../openapi/describe';

/** The API and the admin API: a key's routes, whose query parameters the contract lists (section 2). */
const KEYED_ROUTE = /^\/(v1|admin\/v1)(\/|$)/;

/**
 * A route of the API or the admin API that declares no query parameter (`@QueryParams`) reads none,
 * whatever its method: any query parameter is `400 invalid_request` naming it (contract section 2,
 * "an unknown parameter"), so that a filter, an `as_of` or a `?amount=` the route does not honour is
 * never silently ignored, and a write is refused before it has any effect. Routes that declare their
 * parameters refuse the others in their own parser. The hosted pages and the console (forms, not
 * `/v1`) are left alone. Runs after the guards: authentication comes first.
 */
@Injectable()
export class UnknownQueryParameters implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (KEYED_ROUTE.test(request.routeOptions.url ?? '') && this.reflector.get(QUERY_PARAMS, context.getHandler()) === undefined) {
      const [name] = Object.keys((request.query ?? {}) as Record<string, unknown>);
      if (name !== undefined) throw new ServiceError('invalid_request', `unknown parameter: ${name} (this route takes no query parameter)`, name);
    }
    return next.handle();
  }
}
