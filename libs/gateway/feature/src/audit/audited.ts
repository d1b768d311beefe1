import { applyDecorators, Inject, Injectable, Logger, SetMetadata, UseInterceptors, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { from, mergeMap, type Observable } from 'rxjs';
import { AUDIT_RECORD_ATTEMPTS, hasPrefix, type Clock } from '@pay/kernel';
import { CLOCK } from '@pay/platform';
import { authenticatedKey } from '../auth/api-key.guard';
import { AuditLog } from '../directory/audit-log';
import { DirectoryRepository } from '../directory/directory.repository';

export const AUDITED_ACTION = 'pay:audit:action';

/**
 * Records a successful answer of the route in the audit trail as `action` (`<object>.<verb>`, e.g.
 * `refund.created`), its target the answer's `{object, id}`, its actor the caller's key (or the admin
 * key), its request id the Request-Id. One line per route; an idempotent replay is not recorded again.
 */
export const Audited = (action: string) => applyDecorators(SetMetadata(AUDITED_ACTION, action), UseInterceptors(AuditInterceptor));

interface Answer {
  id?: unknown;
  object?: unknown;
  integrator?: unknown;
  business?: unknown;
  account?: unknown;
  owner?: unknown;
}

@Injectable()
export class AuditInterceptor implements NestInterceptor {
  private readonly logger = new Logger('audit');

  constructor(
    private readonly reflector: Reflector,
    private readonly audit: AuditLog,
    private readonly directory: DirectoryRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const action = this.reflector.get<string | undefined>(AUDITED_ACTION, context.getHandler());
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    return next.handle().pipe(
      mergeMap((answer: unknown) =>
        from(
          (async () => {
            if (action !== undefined && reply.getHeader('Idempotent-Replayed') !== 'true') await this.record(action, request, answer as Answer);
            return answer;
          })(),
        ),
      ),
    );
  }

  private async record(action: string, request: FastifyRequest, answer: Answer): Promise<void> {
    if (typeof answer?.id !== 'string' || typeof answer.object !== 'string') {
      this.logger.error(`${action}: the answer names no object; not recorded (request ${request.id})`);
      return;
    }
    const key = authenticatedKey(request);
    const entry = {
      action,
      actor: key ? { type: 'api_key' as const, id: key.keyId } : { type: 'admin' as const, id: null },
      integrator: key ? key.integratorId : await this.integratorOf(answer),
      target: { object: answer.object, id: answer.id },
      requestId: request.id,
      at: this.clock.now(),
    };
    // The change is done: its record is retried rather than lost on a passing failure, and the answer stands.
    for (let attempt = 1; ; attempt++) {
      try {
        await this.audit.record(entry);
        return;
      } catch (error) {
        if (attempt >= AUDIT_RECORD_ATTEMPTS) {
          this.logger.error(`${action} of ${answer.id} not recorded (request ${request.id}): ${String(error)}`);
          return;
        }
      }
    }
  }

  /** An admin change's integrator: the answer's own, or the one of the connection it names (null for shared things). */
  private async integratorOf(answer: Answer): Promise<string | null> {
    if (answer.object === 'integrator') return answer.id as string;
    if (typeof answer.integrator === 'string') return answer.integrator;
    for (const field of [answer.business, answer.account, answer.owner]) {
      if (hasPrefix(field, 'connection')) return (await this.directory.findConnection(field))?.integratorId ?? null;
    }
    return null;
  }
}
