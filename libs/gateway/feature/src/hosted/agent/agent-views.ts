import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CashPaymentResource, CollectionResource } from '@pay/contracts';
import type { Language, MessageKey } from '@pay/hosted-ui';
import { decimalAmount } from '@pay/kernel';
import type { Agent } from '../../directory/people.repository';
import { errorMessage } from '../forms';
import type { LockWarning } from '../stores/sign-in-attempts';
import { SIGN_IN_LOCK_MINUTES, type SignInRefusal } from '../stores/sign-in-limiter';
import { PASSWORD_LOCK_ERRORS, sendSignInRefusal } from '../sign-in-refusals';
import { HostedPages } from '../views/hosted-pages';
import type { AgentListItem, GatewayViews } from '../views/view-models';

export type { AgentListItem };

/** The application's root; its pages and forms are below it. */
export const AGENT_APP = '/hosted/agent';

export const cashPaymentPath = (cashPaymentId: string): string => `${AGENT_APP}/cash_payments/${encodeURIComponent(cashPaymentId)}`;
export const collectionPath = (collectionId: string): string => `${AGENT_APP}/collections/${encodeURIComponent(collectionId)}`;

/** The application's `?error=` codes and their messages. */
export const AGENT_ERRORS: Readonly<Record<string, MessageKey>> = {
  sign_in: 'error.sign_in_password',
  ...PASSWORD_LOCK_ERRORS,
  reference_mistyped: 'error.reference_mistyped',
  reference_unknown: 'error.reference_unknown',
  collection_unknown: 'error.collection_unknown',
  not_your_point: 'error.not_your_point',
  not_collected: 'error.not_collected',
  amount_format: 'error.amount_format',
  invalid_amount: 'error.invalid_amount',
  invalid_status: 'error.agent_invalid_status',
  handover_code: 'error.handover_code',
  handover_locked: 'error.handover_locked',
  role: 'error.role',
  failed: 'error.agent_failed',
};

/** What an agent is told about a collection, by status. */
const COLLECTION_NOTICE: Readonly<Record<CollectionResource['status'], MessageKey | null>> = {
  awaiting_collection: null,
  collected_awaiting_deposit: 'agent.handover_done',
  deposit_under_review: 'agent.deposit_review',
  settled: 'agent.deposit_settled',
};

/** `4821093756` → `482 109 3756`, as on the instructions page. */
const groupReference = (reference: string): string => `${reference.slice(0, 3)} ${reference.slice(3, 6)} ${reference.slice(6)}`;

/** The agents' pages: each view's model built from what the controllers found, rendered by HostedPages. */
@Injectable()
export class AgentViews {
  constructor(private readonly pages: HostedPages) {}

  signIn(request: FastifyRequest, reply: FastifyReply, csrf: string, error: unknown, lockWarning: LockWarning | null): string {
    return this.pages.render(request, reply, 'agent-sign-in', { csrf, error: this.lockError(error), lockWarning }, { title: ['agent.sign_in_title'] });
  }

  /** The page's language: amounts are typed as its pages show them. */
  language(request: FastifyRequest, reply: FastifyReply): Language {
    return this.pages.language(request, reply);
  }

  home(request: FastifyRequest, reply: FastifyReply, agent: Agent, csrf: string, point: string, lists: Pick<GatewayViews['agent-home'], 'deposits' | 'pickups' | 'toDeposit'>, error: unknown): string {
    const cashier = agent.role === 'cashier';
    return this.pages.render(
      request,
      reply,
      'agent-home',
      { agentName: agent.name, roleKey: `role.${agent.role}`, cashier, point, ...lists, csrf, error: this.lockError(error) },
      { title: ['agent.title'], scanner: true },
    );
  }

  cashPayment(request: FastifyRequest, reply: FastifyReply, csrf: string, payment: CashPaymentResource, merchant: string, error: unknown): string {
    return this.pages.render(
      request,
      reply,
      'agent-cash-payment',
      {
        payment,
        reference: groupReference(payment.payment_reference),
        merchant,
        statusKey: `status.cash_payment.${payment.status}`,
        csrf,
        error: errorMessage(AGENT_ERRORS, error, { example: decimalAmount(payment.amount, payment.currency) }),
      },
      { title: ['agent.cash_payment_heading'] },
    );
  }

  collection(
    request: FastifyRequest,
    reply: FastifyReply,
    agent: Agent,
    csrf: string,
    collection: CollectionResource,
    recipient: string,
    extra: { error: unknown; confirm: unknown; depositPoint: GatewayViews['agent-collection']['depositPoint'] },
  ): string {
    const canValidate = agent.role === 'cashier' && collection.status === 'collected_awaiting_deposit';
    const canHandover = agent.role === 'carrier' && collection.status === 'awaiting_collection';
    const confirm = typeof extra.confirm === 'string' && /^[0-9]{1,15}$/.test(extra.confirm) ? Number(extra.confirm) : null;
    const { error } = extra;
    return this.pages.render(
      request,
      reply,
      'agent-collection',
      {
        collection,
        recipient,
        statusKey: `status.collection.${collection.status}`,
        canValidate,
        canHandover,
        // The carrier holding the cash shows its QR code (the collection's id) to the cashier at the deposit.
        qrCode: agent.role === 'carrier' && collection.status === 'collected_awaiting_deposit' ? `${collectionPath(collection.id)}/qr.png` : null,
        notice: canValidate || canHandover ? null : COLLECTION_NOTICE[collection.status],
        depositPoint: agent.role === 'carrier' && collection.status === 'collected_awaiting_deposit' ? extra.depositPoint : null,
        confirm: canValidate && confirm !== null && confirm !== collection.amount ? { minor: confirm, decimal: decimalAmount(confirm, collection.currency) } : null,
        csrf,
        error: errorMessage(AGENT_ERRORS, error, { example: decimalAmount(collection.amount, collection.currency), minutes: SIGN_IN_LOCK_MINUTES }),
      },
      { title: ['field.collection'] },
    );
  }

  notFound(request: FastifyRequest, reply: FastifyReply, heading: 'agent.cash_payment_not_found' | 'agent.collection_not_found'): string {
    return this.pages.message(request, reply, 404, { heading, text: 'page.not_found_text', link: { href: AGENT_APP, label: 'layout.back' } });
  }

  signInFirst(request: FastifyRequest, reply: FastifyReply): void {
    this.pages.sendMessage(request, reply, 403, { heading: 'page.sign_in_first', text: 'agent.sign_in_first_text', link: { href: AGENT_APP, label: 'action.sign_in' } });
  }

  formExpired(request: FastifyRequest, reply: FastifyReply): void {
    this.pages.formExpired(request, reply, AGENT_APP);
  }

  signInRefused(request: FastifyRequest, reply: FastifyReply, refused: SignInRefusal, query = ''): void {
    sendSignInRefusal(this.pages, request, reply, refused, AGENT_APP, query);
  }

  private lockError(error: unknown) {
    return errorMessage(AGENT_ERRORS, error, { minutes: SIGN_IN_LOCK_MINUTES });
  }
}
