import { createParamDecorator, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyRecord } from '../directory/directory.repository';
import { ApiKeyAuthenticator } from './auth';

/** The key each request authenticated with; weak, so a request's entry goes with the request. */
const authenticatedKeys = new WeakMap<FastifyRequest, ApiKeyRecord>();

/**
 * An integrator's API key (Bearer sk_…), then its rate limit (429 with Retry-After). A guard runs before
 * the handler reads its body or query, so a request without a valid key is 401 before any 400.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(private readonly authenticator: ApiKeyAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    authenticatedKeys.set(request, await this.authenticator.authenticate(request, http.getResponse<FastifyReply>()));
    return true;
  }
}

/** The key record (`integratorId`, `keyId`) of a handler's request, behind an ApiKeyGuard. */
export const Integrator = createParamDecorator((_data: unknown, context: ExecutionContext): ApiKeyRecord => {
  const record = authenticatedKeys.get(context.switchToHttp().getRequest<FastifyRequest>());
  if (!record) throw new Error('@Integrator() is read on a route without ApiKeyGuard');
  return record;
});
