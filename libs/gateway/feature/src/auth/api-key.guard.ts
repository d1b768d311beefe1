import { createParamDecorator, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '@pay/contracts';
import type { ApiKeyRecord } from '../directory/directory.repository';
import { ApiKeyAuthenticator } from './auth';
import { FULL_ACCESS, grants, REQUIRED_SCOPE, scopeFor, type RouteScope } from './scopes';

/** The key each request authenticated with; weak, so a request's entry goes with the request. */
const authenticatedKeys = new WeakMap<FastifyRequest, ApiKeyRecord>();

/** The key a request authenticated with, if an ApiKeyGuard admitted it (the audit trail's actor). */
export const authenticatedKey = (request: FastifyRequest): ApiKeyRecord | undefined => authenticatedKeys.get(request);

/**
 * An integrator's API key (Bearer sk_… or rk_…), its rate limit (429 with Retry-After), then the
 * scope the route declares with `@RequiresScope` (403 insufficient_scope, the scope in `param`). A
 * route without a declaration is refused for every key: a new route cannot ship unscoped. A guard runs
 * before the handler reads its body or query, so a request without a valid key is 401 before any 400.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const resource = this.reflector.getAllAndOverride<RouteScope | undefined>(REQUIRED_SCOPE, [context.getHandler(), context.getClass()]);
    const record = await this.authenticator.authenticate(request, http.getResponse<FastifyReply>());
    if (resource === undefined) {
      throw new Error(`${context.getClass().name}.${context.getHandler().name} declares no scope: add @RequiresScope(…) to it or its controller`);
    }
    const needed = scopeFor(resource, request.method);
    if (!grants(record.scopes, needed)) {
      const message = needed === FULL_ACCESS ? 'only a key with every scope ("*") may call this route' : `this API key lacks the scope ${needed}`;
      throw new ServiceError('insufficient_scope', message, needed);
    }
    authenticatedKeys.set(request, record);
    return true;
  }
}

/** The key record (`integratorId`, `keyId`) of a handler's request, behind an ApiKeyGuard. */
export const Integrator = createParamDecorator((_data: unknown, context: ExecutionContext): ApiKeyRecord => {
  const record = authenticatedKeys.get(context.switchToHttp().getRequest<FastifyRequest>());
  if (!record) throw new Error('@Integrator() is read on a route without ApiKeyGuard');
  return record;
});
