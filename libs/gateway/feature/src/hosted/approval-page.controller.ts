import { Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, type SupplierPaymentResource } from '@pay/contracts';
import { GatewayCore } from '../gateway.core';
import { escapeHtml, formatAmount, formatDate, hiddenCsrf, label, page, redirect, rows, sendPage } from './html';
import { formOf, sameToken } from './payment-page.controller';
import { readCookie, SIGN_IN_CSRF_COOKIE, signInCsrfToken, type Session } from './sessions';

const PAGE = '/hosted/supplier_payments';

const MESSAGES: Record<string, string> = {
  sign_in: 'The login or password is not right.',
  locked: 'Too many wrong passwords: sign-in is locked for 15 minutes.',
  not_authorized: 'You are not an authorized user of the paying business: you cannot approve this payment.',
  invalid_status: 'This payment can no longer be approved or rejected.',
  failed: 'The payment could not be completed. Nothing was debited; please try again.',
};

/**
 * The page at approval_url: an authorized user of the paying business signs in (login and password),
 * sees the supplier, invoice, description, amount and fee, then approves or rejects. It runs the same
 * commands as the sandbox helpers (supplier-payments.approve / reject). The session is bound to this
 * payment and to a user of its payer business.
 */
@Controller('hosted/supplier_payments')
export class ApprovalPageController {
  constructor(private readonly gateway: GatewayCore) {}

  @Get(':id')
  async show(@Param('id') paymentId: string, @Query('error') error: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const payment = await this.find(paymentId);
    if (!payment) return sendPage(reply, page('Supplier payment not found', '<h1>Supplier payment not found</h1>'), 404);
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
    const session = await this.boundSession(request, payment);
    const details = rows([
      [label('Supplier', 'Fournisseur', 'المورد'), escapeHtml(supplier)],
      [label('Invoice', 'Facture', 'الفاتورة'), escapeHtml(payment.invoice_reference)],
      ...(payment.description === null ? [] : ([[label('Description', 'Description', 'الوصف'), escapeHtml(payment.description)]] as [string, string][])),
      [label('Amount', 'Montant', 'المبلغ'), escapeHtml(formatAmount(payment.amount, payment.currency))],
      [label('Fee', 'Frais', 'الرسوم'), escapeHtml(formatAmount(fee, payment.currency))],
      [label('Total debited', 'Total débité', 'المجموع المقتطع'), `<strong>${escapeHtml(formatAmount(payment.amount + fee, payment.currency))}</strong>`],
      [label('Paid by', 'Payé par', 'الدافع'), escapeHtml(payer?.name ?? payment.payer_connection)],
      [label('Approve before', 'À approuver avant', 'آخر أجل'), escapeHtml(formatDate(payment.expires_at))],
      [label('Status', 'Statut', 'الحالة'), `<span class="status">${escapeHtml(payment.status)}</span>`],
    ]);
    const message = typeof error === 'string' && Object.hasOwn(MESSAGES, error) ? `<p class="error" role="alert">${escapeHtml(MESSAGES[error]!)}</p>` : '';
    return sendPage(
      reply,
      page(`Supplier payment ${payment.invoice_reference}`, `<h1>Approve a supplier payment</h1>${details}${message}${this.actions(payment, fee, session, request, reply)}`),
    );
  }

  @Post(':id/sign-in')
  async signIn(@Param('id') paymentId: string, @Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const form = formOf(body);
    if (!form || !sameToken(form.get('csrf'), readCookie(request, SIGN_IN_CSRF_COOKIE))) return csrfRejected(reply);
    const payment = await this.find(paymentId);
    if (!payment) return reply.send(sendPage(reply, page('Supplier payment not found', '<h1>Supplier payment not found</h1>'), 404));
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
    if (!session) return reply.send(sendPage(reply, page('Sign in first', '<h1>Sign in first</h1><p>Sign in on this payment’s page to continue.</p>'), 403));
    if (!form || !sameToken(form.get('csrf'), session.csrfToken)) return csrfRejected(reply);
    try {
      await command();
    } catch (error) {
      const code = error instanceof ServiceError && error.code in MESSAGES ? error.code : 'failed';
      return redirect(reply, `${PAGE}/${paymentId}?error=${code}`);
    }
    return redirect(reply, `${PAGE}/${paymentId}`);
  }

  private actions(payment: SupplierPaymentResource, fee: number, session: Session | undefined, request: FastifyRequest, reply: FastifyReply): string {
    if (payment.status !== 'awaiting_approval') {
      const outcome =
        payment.status === 'succeeded'
          ? 'The payment is approved and done: the supplier is paid.'
          : payment.status === 'declined'
            ? `The payment was declined (${payment.decline_reason ?? 'declined'}).`
            : `The payment is ${payment.status}.`;
      return `<p class="notice">${escapeHtml(outcome)}</p>`;
    }
    if (!session) {
      const csrf = signInCsrfToken(request, reply);
      return `<h2>Sign in to approve</h2>
<form method="post" action="${escapeHtml(payment.id)}/sign-in">${hiddenCsrf(csrf)}
<label for="login">${label('Login', 'Identifiant', 'اسم المستخدم')}</label><input id="login" name="login" type="text" autocomplete="username" autocapitalize="none" required>
<label for="password">${label('Password', 'Mot de passe', 'كلمة المرور')}</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>`;
    }
    return `<form method="post" action="${escapeHtml(payment.id)}/approve">${hiddenCsrf(session.csrfToken)}<button type="submit">Approve ${escapeHtml(formatAmount(payment.amount + fee, payment.currency))}</button></form>
<form method="post" action="${escapeHtml(payment.id)}/reject">${hiddenCsrf(session.csrfToken)}<button type="submit" class="secondary">Reject</button></form>`;
  }

  /** The session of a user of the payer business, opened on this payment's page. */
  private async boundSession(request: FastifyRequest, payment: SupplierPaymentResource): Promise<Session | undefined> {
    const session = await this.gateway.sessions.current(request);
    if (session?.kind !== 'business_user' || session.objectId !== payment.id) return undefined;
    const user = await this.gateway.people.findBusinessUser(session.subjectId);
    return user?.business === payment.payer_connection ? session : undefined;
  }

  private async find(supplierPaymentId: string): Promise<SupplierPaymentResource | undefined> {
    try {
      return await this.gateway.bus.request('supplier-payments.retrieve', { integratorId: null, supplierPaymentId });
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'resource_not_found') return undefined;
      throw error;
    }
  }
}

export const csrfRejected = (reply: FastifyReply) =>
  reply.send(sendPage(reply, page('Form expired', '<h1>This form has expired</h1><p>Go back, reload the page and try again.</p>'), 403));
