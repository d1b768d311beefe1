import { Body, Controller, Get, Inject, Param, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import type { SupplierPaymentResource } from '@pay/contracts';
import type { MessageKey } from '@pay/hosted-ui';
import { SIGN_IN_FIELD_LENGTH_MAX } from '@pay/kernel';
import { DirectoryRepository } from '../directory/directory.repository';
import { PeopleRepository } from '../directory/people.repository';
import { errorMessage, notFoundAsUndefined, redirect } from './forms';
import { runPageAction } from './page-actions';
import { SessionStore, signInCsrfToken, signInFormOf, type Session } from './stores/sessions';
import { attemptsLeftParam, lockWarning, SignInAttempts } from './stores/sign-in-attempts';
import { PASSWORD_LOCK_ERRORS, sendSignInRefusal } from './sign-in-refusals';
import { businessUserSignInLogin, SIGN_IN_LOCK_MINUTES, SignInLimiter } from './stores/sign-in-limiter';
import { HostedPages } from './views/hosted-pages';
import type { GatewayViews } from './views/view-models';
import { HostedErrorPages } from './views/hosted-error-pages';

const PAGE = '/hosted/supplier_payments';

/** This page's `?error=` codes and their messages. */
const ERRORS: Readonly<Record<string, MessageKey>> = {
  sign_in: 'error.sign_in_password',
  ...PASSWORD_LOCK_ERRORS,
  not_authorized: 'error.not_authorized',
  invalid_status: 'error.approval_invalid_status',
  failed: 'error.failed',
};

/**
 * The page at approval_url: an authorized user of the paying business signs in (login and password),
 * sees the supplier, invoice, description, amount and fee, then approves or rejects. It runs the same
 * commands as the sandbox helpers (supplier-payments.approve / reject). The session is bound to this
 * payment and to a user of its payer business.
 */
@UseFilters(HostedErrorPages)
@Controller('hosted/supplier_payments')
export class ApprovalPageController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly directory: DirectoryRepository,
    private readonly sessions: SessionStore,
    private readonly signIns: SignInLimiter,
    private readonly attempts: SignInAttempts,
    private readonly people: PeopleRepository,
    private readonly pages: HostedPages,
  ) {}

  @Get(':id')
  async show(@Param('id') paymentId: string, @Query('error') error: unknown, @Query('left') left: unknown, @Query('lock') lock: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const payment = await this.find(paymentId);
    if (!payment) return this.pages.message(request, reply, 404, { heading: 'page.not_found', text: 'page.not_found_text' });
    const [payer, supplier, fee] = await Promise.all([
      this.directory.findConnection(payment.payer_connection),
      this.bus
        .request('supplier-payments.beneficiaries.retrieve', { beneficiaryId: payment.beneficiary, business: payment.payer_connection })
        .then((b) => b.account_name)
        .catch(() => payment.beneficiary),
      payment.fee_amount !== null
        ? Promise.resolve(payment.fee_amount)
        : this.bus.request('ledger.fee-quote', { useCase: 'supplier_payment', feeMode: 'added', amount: payment.amount, currency: payment.currency }).then((q) => q.feeAmount),
    ]);
    const business = payer?.name ?? payment.payer_connection;
    const session = await this.boundSession(request, payment);
    const step = payment.status !== 'awaiting_approval' ? 'done' : session ? 'confirm' : 'sign_in';
    return this.pages.render(
      request,
      reply,
      'approval',
      {
        payment,
        fee,
        supplier,
        business,
        statusKey: `status.supplier_payment.${payment.status}`,
        step,
        outcome: step === 'done' ? outcomeOf(payment, supplier) : null,
        csrf: step === 'sign_in' ? signInCsrfToken(request, reply) : (session?.csrfToken ?? ''),
        error: errorMessage(ERRORS, error, { minutes: SIGN_IN_LOCK_MINUTES }),
        lockWarning: step === 'sign_in' ? lockWarning(error, left, lock) : null,
      },
      { title: ['approval.title', { invoice: payment.invoice_reference }] },
    );
  }

  @Post(':id/sign-in')
  async signIn(@Param('id') paymentId: string, @Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const form = signInFormOf(body, request);
    if (!form) return this.pages.formExpired(request, reply, `${PAGE}/${paymentId}`);
    const payment = await this.find(paymentId);
    if (!payment) return this.pages.sendMessage(request, reply, 404, { heading: 'page.not_found', text: 'page.not_found_text' });
    const loginName = (form.get('login') ?? '').trim().slice(0, SIGN_IN_FIELD_LENGTH_MAX);
    const login = businessUserSignInLogin(loginName);
    const signedIn = await this.signIns.signIn(login, request.ip, async () =>
      loginName ? this.people.signInBusinessUser(loginName, (form.get('password') ?? '').slice(0, SIGN_IN_FIELD_LENGTH_MAX)) : undefined,
    );
    if ('refused' in signedIn) {
      const left = signedIn.refused === 'sign_in' ? attemptsLeftParam(await this.attempts.left(login)) : '';
      return sendSignInRefusal(this.pages, request, reply, signedIn.refused, `${PAGE}/${paymentId}`, left);
    }
    // The right password, but not a user of the paying business: no session for this payment.
    if (signedIn.subject.business !== payment.payer_connection) return redirect(reply, `${PAGE}/${paymentId}?error=not_authorized`);
    await this.sessions.open(reply, { kind: 'business_user', subjectId: signedIn.subject.id, objectId: paymentId });
    return redirect(reply, `${PAGE}/${paymentId}`);
  }

  @Post(':id/approve')
  async approve(@Param('id') paymentId: string, @Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.act(paymentId, body, request, reply, () => this.bus.request('supplier-payments.approve', { integratorId: null, supplierPaymentId: paymentId }));
  }

  @Post(':id/reject')
  async reject(@Param('id') paymentId: string, @Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.act(paymentId, body, request, reply, () => this.bus.request('supplier-payments.reject', { integratorId: null, supplierPaymentId: paymentId }));
  }

  /** A form post of a signed-in user: the session must be for this payment, its user of the payer business, and carry the form's CSRF token. */
  private async act(paymentId: string, body: unknown, request: FastifyRequest, reply: FastifyReply, command: () => Promise<unknown>) {
    const payment = await this.find(paymentId);
    const session = payment && (await this.boundSession(request, payment));
    return runPageAction(this.pages, request, reply, { session, body, page: `${PAGE}/${paymentId}`, errors: ERRORS }, command);
  }

  /** The session of a user of the payer business, opened on this payment's page. */
  private async boundSession(request: FastifyRequest, payment: SupplierPaymentResource): Promise<Session | undefined> {
    const session = await this.sessions.current(request);
    if (session?.kind !== 'business_user' || session.objectId !== payment.id) return undefined;
    const user = await this.people.findBusinessUser(session.subjectId);
    return user?.business === payment.payer_connection ? session : undefined;
  }

  private find(supplierPaymentId: string): Promise<SupplierPaymentResource | undefined> {
    return notFoundAsUndefined(() => this.bus.request('supplier-payments.retrieve', { integratorId: null, supplierPaymentId }));
  }
}

/** What the approver is told once the payment no longer awaits approval. */
const outcomeOf = (payment: SupplierPaymentResource, supplier: string): GatewayViews['approval']['outcome'] => {
  switch (payment.status) {
    case 'succeeded':
      return { key: 'approval.done_succeeded', params: { supplier }, success: true };
    case 'rejected':
      return { key: 'approval.done_rejected', params: {}, success: false };
    case 'declined':
      return { key: 'approval.done_declined', params: {}, success: false, reasonKey: `decline.${payment.decline_reason ?? 'insufficient_balance'}` };
    case 'canceled':
      return { key: 'approval.done_canceled', params: {}, success: false };
    default:
      return { key: 'approval.done_expired', params: {}, success: false };
  }
};
