import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { ServiceError } from '@pay/contracts';
import { AUDIT_INTENT_SETTLE_AFTER_MS, AUDIT_SWEEP_BATCH_MAX, AUDIT_SWEEP_INTERVAL_MS, type Clock } from '@pay/kernel';
import { CLOCK } from '@pay/platform';
import { AuditLog, type AuditEntry, type AuditIntent, type IntentOutcome } from '../directory/audit-log';
import { DirectoryRepository, sha256 } from '../directory/directory.repository';
import { integratorOf, onceKey } from './audited';

type Answer = Record<string, unknown>;
/** The target as its owning app shows it now; undefined when it has none of that id. */
type Read = (intent: AuditIntent, bus: MessageBus) => Promise<Answer | undefined>;

const orNotFound = async (read: () => Promise<unknown>): Promise<Answer | undefined> => {
  try {
    return (await read()) as Answer;
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'resource_not_found') return undefined;
    throw error;
  }
};
const integratorId = (intent: AuditIntent): string => intent.integrator ?? '';
const exists = (object: 'payout_batch' | 'bank_statement_import'): Read => async (intent, bus) =>
  (await bus.request('payments.created-objects.exists', { object, id: intent.target.id })).exists ? { id: intent.target.id, object } : undefined;
const made = (read: Read): ((intent: AuditIntent, bus: MessageBus) => Promise<IntentOutcome>) => async (intent, bus) => {
  const answer = await read(intent, bus);
  return answer ? { done: true, answer } : { done: false };
};
const when =
  (read: Read, holds: (answer: Answer, intent: AuditIntent) => boolean): Read =>
  async (intent, bus) => {
    const answer = await read(intent, bus);
    return answer && holds(answer, intent) ? answer : undefined;
  };

const refund: Read = (intent, bus) => orNotFound(() => bus.request('payments.refunds.retrieve', { integratorId: integratorId(intent), id: intent.target.id }));
const payout: Read = (intent, bus) => orNotFound(() => bus.request('payments.payouts.retrieve', { integratorId: integratorId(intent), payoutId: intent.target.id }));
const bankAccount: Read = (intent, bus) => orNotFound(() => bus.request('payments.bank-accounts.retrieve', { integratorId: integratorId(intent), id: intent.target.id }));
const endpoint: Read = (intent, bus) => orNotFound(() => bus.request('webhooks.endpoints.retrieve', { integratorId: integratorId(intent), id: intent.target.id }));
const beneficiary: Read = (intent, bus) => orNotFound(() => bus.request('supplier-payments.beneficiaries.find', { beneficiaryId: intent.target.id }));
const cashPoint: Read = (intent, bus) => orNotFound(() => bus.request('cash.cash-points.retrieve', { cashPointId: intent.target.id }));
const collection: Read = (intent, bus) => orNotFound(() => bus.request('collections.retrieve', { integratorId: null, collectionId: intent.target.id }));
/** A deposit resolved: accepted as received, the collection is settled; corrected, it shows the count. */
const depositResolved = (answer: Answer, intent: AuditIntent): boolean =>
  intent.details['resolution'] === 'accept_received'
    ? answer['status'] === 'settled'
    : (answer['deposit'] as Answer | null)?.['amount_received'] === intent.details['amount_received'];
const topup: Read = async (intent, bus) =>
  (await bus.request('ledger.entries', { reference: intent.target.id })).data.length > 0 ? { id: intent.target.id, object: 'topup', account: intent.details['account'] } : undefined;
/** The endpoint shows every field the update asked for (its URL kept as a hash). */
const assumedDone = async (intent: AuditIntent): Promise<IntentOutcome> => ({ done: true, answer: { ...intent.target } });
const sameAs = (requested: Answer, answer: Answer): boolean =>
  Object.entries(requested).every(([field, value]) =>
    field === 'url_sha256' ? typeof answer['url'] === 'string' && sha256(answer['url']) === value : JSON.stringify(answer[field]) === JSON.stringify(value),
  );

/**
 * How each change made by another app is read back after a crash: done (the target is there, in the
 * state the change leaves it) or not. Every action that intends has one (audit-sweeper.unit.spec).
 */
export const OUTCOMES: Record<string, (intent: AuditIntent, bus: MessageBus) => Promise<IntentOutcome>> = {
  'refund.created': made(refund),
  'payout.created': made(payout),
  'payout.canceled': made(when(payout, (p) => p['status'] === 'canceled')),
  'bank_account.created': made(bankAccount),
  'webhook_endpoint.created': made(endpoint),
  // Done when the endpoint shows every field the update asked for.
  'webhook_endpoint.updated': made(when(endpoint, (e, intent) => sameAs(intent.details, e))),
  // A rotation leaves nothing the gateway can read (the secret is shown only in its answer): an
  // endpoint still there is taken as rotated, so that a rotation is never lost.
  'webhook_endpoint.secret_rotated': made(endpoint),
  'webhook_endpoint.deleted': async (intent, bus) => ((await endpoint(intent, bus)) ? { done: false } : { done: true, answer: { id: intent.target.id, object: 'webhook_endpoint' } }),
  'beneficiary.created': made(beneficiary),
  'beneficiary.revoked': made(when(beneficiary, (b) => b['status'] === 'revoked')),
  'cash_point.created': made(cashPoint),
  'collection.deposit_resolved': made(when(collection, depositResolved)),
  'topup.created': made(topup),
  'payout_batch.created': made(exists('payout_batch')),
  'bank_statement_import.created': made(exists('bank_statement_import')),
  // Redeliveries and replays (the console's and the APIs') leave nothing to read back that tells one
  // request's from another's: as a rotation, the intent is taken as done, so that an action is never lost.
  'event.redelivered': assumedDone,
  'failed_deliveries.redelivered': assumedDone,
  'parked_events.replayed': assumedDone,
};

/**
 * Settles the audit intents a crash left behind (a change dispatched, its answer never recorded), at
 * start and every AUDIT_SWEEP_INTERVAL_MS, on every gateway: each intent is held by one sweep at a time.
 * An intent is settled only when older than AUDIT_INTENT_SETTLE_AFTER_MS, when no request still waits
 * for its answer.
 */
@Injectable()
export class AuditSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('audit');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly audit: AuditLog,
    private readonly directory: DirectoryRepository,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), AUDIT_SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One sweep; answers how many intents it recorded and dropped. */
  async sweep(): Promise<{ recorded: number; dropped: number }> {
    const before = new Date(this.clock.now().getTime() - AUDIT_INTENT_SETTLE_AFTER_MS);
    const settled = await this.audit.sweep(before, AUDIT_SWEEP_BATCH_MAX, (intent) => this.outcome(intent), (intent, answer) => this.entry(intent, answer));
    if (settled.recorded + settled.dropped > 0) this.logger.log(`audit intents settled after a crash: ${settled.recorded} recorded, ${settled.dropped} not done`);
    return settled;
  }

  private tick(): void {
    if (this.running) return;
    this.running = this.sweep()
      .then(() => undefined)
      .catch((error: unknown) => this.logger.warn(`audit sweep failed (the next one retries): ${String(error)}`))
      .finally(() => (this.running = undefined));
  }

  private async outcome(intent: AuditIntent): Promise<IntentOutcome> {
    const read = OUTCOMES[intent.action];
    if (!read) {
      this.logger.error(`audit intent ${intent.id}: no way to read back ${intent.action}; kept`);
      return undefined;
    }
    try {
      return await read(intent, this.bus);
    } catch (error) {
      this.logger.warn(`audit intent ${intent.id} (${intent.action}): its target could not be read (kept for the next sweep): ${String(error)}`);
      return undefined;
    }
  }

  private async entry(intent: AuditIntent, answer: Answer): Promise<AuditEntry> {
    const target = typeof answer['id'] === 'string' && typeof answer['object'] === 'string' ? { object: answer['object'], id: answer['id'] } : intent.target;
    return {
      action: intent.action,
      actor: intent.actor,
      integrator: intent.integrator ?? (await integratorOf(answer, this.directory)),
      target,
      requestId: intent.requestId,
      at: intent.at,
      operationKey: intent.operationKey === onceKey(intent.action, intent.target.id) ? onceKey(intent.action, target.id) : intent.operationKey,
    };
  }
}
