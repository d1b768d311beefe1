import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AdminAuthenticator } from './auth';

/** The admin key only: a finance key is 403 forbidden, anything else 401. */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(private readonly authenticator: AdminAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    await this.authenticator.admin(context.switchToHttp().getRequest<FastifyRequest>());
    return true;
  }
}

/** The ledger's reads: the admin key or a finance key, anything else 401. */
@Injectable()
export class FinanceGuard implements CanActivate {
  constructor(private readonly authenticator: AdminAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    await this.authenticator.financeOrAdmin(context.switchToHttp().getRequest<FastifyRequest>());
    return true;
  }
}
