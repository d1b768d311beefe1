import {
  applyDecorators,
  createParamDecorator,
  Inject,
  Injectable,
  Logger,
  SetMetadata,
  UseInterceptors,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { catchError, from, mergeMap, type Observable } from 'rxjs';
import { ERROR_STATUS, ServiceError } from '@pay/contracts';
import { AUDIT_RECORD_ATTEMPTS, failpoint, hasPrefix, newId, type Clock } from '@pay/kernel';
import { CLOCK } from '@pay/platform';
import { authenticatedKey } from '../auth/api-key.guard';
import { AuditLog, type AuditEntry, type AuditWriter, type Queryable } from '../directory/audit-log';
import { DirectoryRepository } from '../directory/directory.repository';

export const AUDITED_ACTION = 'pay:audit:action';
const AUDITED_OPTIONS = 'pay:audit:options';
const TRAIL = Symbol('audit trail');

export interface AuditedOptions {
  /** The change may happen again to the same target (an update, a secret rotation): each request is its own event. */
  repeatable?: boolean;
  /**
   * The change is dispatched to another app and its target is the route's path parameter `param`: the
   * intent is written before the handler runs, so the handler needs no `@Audit()` trail. A refusal (4xx,
   * a bad body included) drops it.
   */
  intends?: { object: string; param: string };
}

/** Killed here (FAILPOINTS) a process has made a change and not yet recorded it: the crash test's point. */
export const AUDIT_FAILPOINT = 'audit.after-change';
/** Killed here a process has written an intent and not dispatched its change: the sweeper must record nothing. */
export const AUDIT_INTENT_FAILPOINT = 'audit.after-intent';

/**
 * Records a successful answer of the route in the audit trail as `action` (`<object>.<verb>`, e.g.
 * `refund.created`), its actor the caller's key (or the admin key), its request id the Request-Id.
 * One line per route. The handler says where the change happens (its `@Audit()` trail): a change the
 * gateway stores is recorded in the change's transaction (`trail.record`); a change dispatched to
 * another app gets an intent first (`trail.intend`), settled by the answer or, after a crash, by the
 * sweeper. An idempotent replay records nothing: its first answer did.
 */
export const Audited = (action: string, options: AuditedOptions = {}) =>
  applyDecorators(SetMetadata(AUDITED_ACTION, action), SetMetadata(AUDITED_OPTIONS, options), UseInterceptors(AuditInterceptor));

/** The audit trail of the request (a route with `@Audited`). */
export const Audit = createParamDecorator((_: unknown, context: ExecutionContext): AuditTrail => {
  const trail = (context.switchToHttp().getRequest<FastifyRequest>() as unknown as Record<symbol, AuditTrail | undefined>)[TRAIL];
  if (!trail) throw new Error('@Audit() needs @Audited on its route');
  return trail;
});

/** `<action> <target id>`: at most one event for a change that happens once to its target. */
export const onceKey = (action: string, targetId: string): string => `${action} ${targetId}`;

type Target = { object: string; id: string };

/** The request's audit trail: who does it, and where the handler records it. */
export class AuditTrail {
  /** The intent written before the change was dispatched, if any. */
  intent: { id: string; target: Target; integrator: string | null; at: Date } | undefined;
  /** Recorded in the change's own transaction. */
  recorded = false;

  constructor(
    readonly action: string,
    readonly repeatable: boolean,
    readonly actor: AuditEntry['actor'],
    /** The key's integrator; null for the admin API (then each change names it). */
    readonly integrator: string | null,
    readonly requestId: string,
    private readonly log: AuditLog,
    private readonly clock: Clock,
  ) {}

  /** For a change the gateway stores: pass it to the repository, which calls it in the change's transaction. */
  readonly record: AuditWriter = async (db: Queryable, target: Target, integrator: string | null, action = this.action) => {
    // Another action than the route's is a creation (an integrator's first key): once per target.
    const operationKey = this.repeatable && action === this.action ? null : onceKey(action, target.id);
    await this.log.record({ ...this.entry(target, integrator ?? this.integrator, this.clock.now(), operationKey), action }, db);
    this.recorded = true;
  };

  /**
   * For a change another app makes: call it before dispatching, with the target's id (minted by the
   * gateway). `details`: what reading the outcome back needs, never a secret.
   */
  async intend(target: Target, details: Record<string, unknown> = {}, integrator: string | null = this.integrator): Promise<void> {
    const id = newId('auditEvent');
    const at = this.clock.now();
    const operationKey = this.repeatable ? id : onceKey(this.action, target.id);
    await this.log.intend({ ...this.entry(target, integrator, at, operationKey), id, operationKey, details });
    this.intent = { id, target, integrator, at };
    failpoint(AUDIT_INTENT_FAILPOINT);
  }

  /**
   * The dispatched change answered: its intent becomes its event, in one transaction. `answered`: the
   * object the answer names, when it names one (a repeated bank statement import answers the first import).
   */
  async settle(answered: Target | undefined, integrator: string | null): Promise<void> {
    const intent = this.intent;
    if (!intent) throw new Error(`${this.action}: settle needs an intent`);
    const target = answered ?? intent.target;
    await this.log.settle(intent.id, this.entry(target, integrator, this.clock.now(), this.repeatable ? intent.id : onceKey(this.action, target.id)));
  }

  /** A refusal (4xx) changed nothing: the intent goes. Anything else may have changed the target: the sweeper reads it back. */
  async failed(error: unknown): Promise<void> {
    if (!this.intent || !(error instanceof ServiceError) || ERROR_STATUS[error.code] >= 500) return;
    await this.log.drop(this.intent.id);
  }

  entry(target: Target, integrator: string | null, at: Date, operationKey: string | null): AuditEntry {
    return { action: this.action, actor: this.actor, integrator, target, requestId: this.requestId, at, operationKey };
  }
}

/** A change's integrator when the caller is the admin: the answer's own, or the one of the connection it names (null for shared things). */
export const integratorOf = async (answer: Record<string, unknown>, directory: DirectoryRepository): Promise<string | null> => {
  if (answer['object'] === 'integrator' && typeof answer['id'] === 'string') return answer['id'];
  if (typeof answer['integrator'] === 'string') return answer['integrator'];
  for (const field of [answer['business'], answer['account'], answer['owner'], answer['beneficiary_connection']]) {
    if (hasPrefix(field, 'connection')) return (await directory.findConnection(field))?.integratorId ?? null;
  }
  return null;
};

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
    if (action === undefined) return next.handle();
    const options = this.reflector.get<AuditedOptions | undefined>(AUDITED_OPTIONS, context.getHandler()) ?? {};
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const key = authenticatedKey(request);
    const actor = key ? { type: 'api_key' as const, id: key.keyId } : { type: 'admin' as const, id: null };
    const trail = new AuditTrail(action, options.repeatable === true, actor, key?.integratorId ?? null, request.id, this.audit, this.clock);
    (request as unknown as Record<symbol, AuditTrail>)[TRAIL] = trail;
    const intends = options.intends;
    const handled = intends
      ? from(trail.intend({ object: intends.object, id: String((request.params as Record<string, unknown>)[intends.param]) })).pipe(mergeMap(() => next.handle()))
      : next.handle();
    return handled.pipe(
      mergeMap((answer: unknown) => from(this.answered(trail, request, reply, answer as Record<string, unknown> | undefined).then(() => answer))),
      catchError((error: unknown) => from(this.failed(trail, error).then(() => Promise.reject(error)))),
    );
  }

  private async answered(trail: AuditTrail, request: FastifyRequest, reply: FastifyReply, answer: Record<string, unknown> | undefined): Promise<void> {
    if (trail.recorded) return;
    const target = typeof answer?.['id'] === 'string' && typeof answer['object'] === 'string' ? { object: answer['object'], id: answer['id'] } : undefined;
    if (trail.intent) {
      failpoint(AUDIT_FAILPOINT);
      // The answer names the object the change made (a repeated bank statement import answers the first import).
      const integrator = trail.intent.integrator ?? (answer ? await integratorOf(answer, this.directory) : null);
      // Retried on a passing failure; past the attempts the intent stays, and the sweeper records it.
      await this.attempt(trail, () => trail.settle(target, integrator), request);
      return;
    }
    if (reply.getHeader('Idempotent-Replayed') === 'true') return;
    if (!target || !answer) {
      this.logger.error(`${trail.action}: the answer names no object; not recorded (request ${request.id})`);
      return;
    }
    // A route whose handler neither records in its transaction nor intends: recorded after the answer, as a last resort.
    this.logger.warn(`${trail.action}: recorded after the answer (the route neither records in its transaction nor intends); a crash here loses it`);
    const integrator = trail.integrator ?? (await integratorOf(answer, this.directory));
    await this.attempt(trail, () => this.audit.record(trail.entry(target, integrator, this.clock.now(), trail.repeatable ? null : onceKey(trail.action, target.id))), request);
  }

  private async failed(trail: AuditTrail, error: unknown): Promise<void> {
    await trail.failed(error).catch((dropError: unknown) => this.logger.warn(`${trail.action}: intent ${trail.intent!.id} not dropped (the sweeper will): ${String(dropError)}`));
  }

  private async attempt(trail: AuditTrail, work: () => Promise<unknown>, request: FastifyRequest): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await work();
        return;
      } catch (error) {
        if (attempt >= AUDIT_RECORD_ATTEMPTS) {
          this.logger.error(`${trail.action} not recorded yet (request ${request.id}): ${String(error)}`);
          return;
        }
      }
    }
  }
}
