import { Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SupplierPaymentResource } from '@pay/contracts';
import type { MessageKey } from '@pay/hosted-ui';
import { GatewayCore } from '../gateway.core';
import { errorMessage, formOf, notFoundAsUndefined, redirect, refusalCode, sameToken } from './forms';
import { HostedPages } from './hosted-pages';
import { readCookie, SIGN_IN_CSRF_COOKIE, signInCsrfToken, type Session } from './sessions';
import { SIGN_IN_LOCK_MINUTES } from './sign-in-limiter';
import type { GatewayViews } from './view-models';

const PAGE = '/hosted/supplier_payments';

/** This page's `?error=` codes and their messages. */
const ERRORS: Readonly<Record<string, MessageKey>> = {
  sign_in: 'error.sign_in_password',
  locked: 'error.locked_password',
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
@Controller('hosted/supplier_payments')
export class ApprovalPageController {
  constructor(
    private readonly gateway: GatewayCore,
    private readonly pages: HostedPages,
  ) {}

  @Get(':id')
  async show(@Param('id') paymentId: string, @Query('error') error: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const payment = await this.find(paymentId);
    if (!payment) return this.pages.message(request, reply, 404, { heading: 'page.not_found', text: 'page.not_found_text' });
    const [payer, supplier, fee] = await Promise.all([
      this.gateway.directory.findConnection(payment.payer_connection),
      this.gateway.bus
        .request('supplier-payments.beneficiaries.retrieve', { beneficiaryId: payment.beneficiary, business: payment.payer_connection })
        .then((b) => b.account_name)
        .catch(() => payment.beneficiary),
      payment.fee_amount !== null
        ? Promise.resolve(payment.fee_amount)
        : this.gateway.bus.request('ledger.fee-quote', { useCase: 'supplier_payment', feeMode: 'added', amount: payment.amount, currency: payment.currency }).then((q) => q.feeAmount),
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
      },
      { title: ['approval.title', { invoice: payment.invoice_reference }] },
    );
  }

  @Post(':id/sign-in')
  async signIn(@Param('id') paymentId: string, @Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const form = formOf(body);
    if (!form || !sameToken(form.get('csrf'), readCookie(request, SIGN_IN_CSRF_COOKIE))) return this.pages.formExpired(request, reply);
    const payment = await this.find(paymentId);
    if (!payment) return this.pages.sendMessage(request, reply, 404, { heading: 'page.not_found', text: 'page.not_found_text' });
    const loginName = (form.get('login') ?? '').trim().slice(0, 200);
    const login = `business_user:${loginName}`;
    if (!(await this.gateway.signIns.attempt(login))) return redirect(reply, `${PAGE}/${paymentId}?error=locked`);
    const user = loginName ? await this.gateway.people.signInBusinessUser(loginName, (form.get('password') ?? '').slice(0, 200)) : undefined;
    if (!user) {
      const locked = await this.gateway.signIns.failed(login);
      return redirect(reply, `${PAGE}/${paymentId}?error=${locked ? 'locked' : 'sign_in'}`);
    }
    await this.gateway.signIns.succeeded(login);
    // The right password, but not a user of the paying business: no session for this payment.
    if (user.business !== payment.payer_connection) return redirect(reply, `${PAGE}/${paymentId}?error=not_authorized`);
    await this.gateway.sessions.open(reply, { kind: 'business_user', subjectId: user.id, objectId: paymentId });
    return redirect(reply, `${PAGE}/${paymentId}`);
  }

  @Post(':id/approve')
  async approve(@Param('id') paymentId: string, @Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.act(paymentId, body, request, reply, () => this.gateway.bus.request('supplier-payments.approve', { integratorId: null, supplierPaymentId: paymentId }));
  }

  @Post(':id/reject')
  async reject(@Param('id') paymentId: string, @Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.act(paymentId, body, request, reply, () => this.gateway.bus.request('supplier-payments.reject', { integratorId: null, supplierPaymentId: paymentId }));
  }

  /** A form post of a signed-in user: the session must be for this payment, its user of the payer business, and carry the form's CSRF token. */
  private async act(paymentId: string, body: unknown, request: FastifyRequest, reply: FastifyReply, command: () => Promise<unknown>) {
    const payment = await this.find(paymentId);
    const session = payment && (await this.boundSession(request, payment));
    const form = formOf(body);
    if (!session) return this.pages.sendMessage(request, reply, 403, { heading: 'page.sign_in_first', text: 'page.sign_in_first_text' });
    if (!form || !sameToken(form.get('csrf'), session.csrfToken)) return this.pages.formExpired(request, reply);
    try {
      await command();
    } catch (error) {
      return redirect(reply, `${PAGE}/${paymentId}?error=${refusalCode(error, ERRORS)}`);
    }
    return redirect(reply, `${PAGE}/${paymentId}`);
  }

  /** The session of a user of the payer business, opened on this payment's page. */
  private async boundSession(request: FastifyRequest, payment: SupplierPaymentResource): Promise<Session | undefined> {
    const session = await this.gateway.sessions.current(request);
    if (session?.kind !== 'business_user' || session.objectId !== payment.id) return undefined;
    const user = await this.gateway.people.findBusinessUser(session.subjectId);
    return user?.business === payment.payer_connection ? session : undefined;
  }

  private find(supplierPaymentId: string): Promise<SupplierPaymentResource | undefined> {
    return notFoundAsUndefined(() => this.gateway.bus.request('supplier-payments.retrieve', { integratorId: null, supplierPaymentId }));
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
