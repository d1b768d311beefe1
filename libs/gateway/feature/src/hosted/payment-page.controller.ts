import { timingSafeEqual } from 'node:crypto';
import { Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, type PaymentResource } from '@pay/contracts';
import { GatewayCore } from '../gateway.core';
import { escapeHtml, formatAmount, formatDate, hiddenCsrf, label, page, redirect, rows, sendPage } from './html';
import { readCookie, SIGN_IN_CSRF_COOKIE, signInCsrfToken, type Session } from './sessions';

const PAGE = '/hosted/payments';

const MESSAGES: Record<string, string> = {
  sign_in: 'The phone number or PIN is not right.',
  locked: 'Too many wrong PINs: sign-in is locked for 15 minutes.',
  currency_mismatch: "Your account's currency is not the payment's currency: this payment cannot be paid from it.",
  invalid_status: 'This payment can no longer be authorized.',
  failed: 'The payment could not be completed. Nothing was debited; please try again.',
};

/**
 * The customer's page at authorization_url: the payment, a sign-in (phone and PIN), then Authorize or
 * Decline. It runs the same commands as the sandbox helpers (payments.authorize, payments.decline).
 * The session is bound to this payment: signing in here authorizes nothing else.
 */
@Controller('hosted/payments')
export class PaymentPageController {
  constructor(private readonly gateway: GatewayCore) {}

  @Get(':id')
  async show(@Param('id') paymentId: string, @Query('error') error: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const payment = await this.find(paymentId);
    if (!payment) return sendPage(reply, page('Payment not found', '<h1>Payment not found</h1>'), 404);
    const merchant = await this.gateway.directory.findConnection(payment.merchant_connection);
    const session = await this.boundSession(request, paymentId);
    const details = rows([
      [label('Merchant', 'Marchand', 'التاجر'), escapeHtml(merchant?.name ?? payment.merchant_connection)],
      [label('Amount', 'Montant', 'المبلغ'), `<strong>${escapeHtml(formatAmount(payment.amount, payment.currency))}</strong>`],
      [label('Order', 'Commande', 'الطلب'), escapeHtml(payment.order_reference)],
      [label('Authorize before', 'À autoriser avant', 'آخر أجل'), escapeHtml(formatDate(payment.expires_at))],
      [label('Status', 'Statut', 'الحالة'), `<span class="status">${escapeHtml(payment.status)}</span>`],
    ]);
    const message = typeof error === 'string' && Object.hasOwn(MESSAGES, error) ? `<p class="error" role="alert">${escapeHtml(MESSAGES[error]!)}</p>` : '';
    return sendPage(reply, page(`Payment ${payment.order_reference}`, `<h1>Authorize a payment</h1>${details}${message}${this.actions(payment, session, request, reply)}`));
  }

  @Post(':id/sign-in')
  async signIn(@Param('id') paymentId: string, @Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const form = formOf(body);
    if (!form || !sameToken(form.get('csrf'), readCookie(request, SIGN_IN_CSRF_COOKIE))) return this.csrfRejected(reply);
    const payment = await this.find(paymentId);
    if (!payment) return reply.send(sendPage(reply, page('Payment not found', '<h1>Payment not found</h1>'), 404));
    const phone = (form.get('phone') ?? '').trim();
    const login = `customer:${phone}`;
    if (!(await this.gateway.signIns.attempt(login))) return redirect(reply, `${PAGE}/${paymentId}?error=locked`);
    const customer = /^\+?[0-9 ]{4,20}$/.test(phone) ? await this.gateway.directory.signInCustomer(phone, form.get('pin') ?? '', payment.currency) : undefined;
    if (!customer) {
      const locked = await this.gateway.signIns.failed(login);
      return redirect(reply, `${PAGE}/${paymentId}?error=${locked ? 'locked' : 'sign_in'}`);
    }
    await this.gateway.signIns.succeeded(login);
    await this.gateway.sessions.open(reply, { kind: 'customer', subjectId: customer.id, objectId: paymentId });
    return redirect(reply, `${PAGE}/${paymentId}`);
  }

  @Post(':id/authorize')
  async authorize(@Param('id') paymentId: string, @Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.act(paymentId, body, request, reply, async (session) => {
      const customer = await this.gateway.directory.findCustomer(session.subjectId);
      if (!customer) throw new ServiceError('invalid_request', 'no such customer');
      await this.gateway.bus.request('payments.authorize', { integratorId: null, paymentId, customer });
    });
  }

  @Post(':id/decline')
  async decline(@Param('id') paymentId: string, @Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.act(paymentId, body, request, reply, async () => {
      await this.gateway.bus.request('payments.decline', { integratorId: null, paymentId });
    });
  }

  /** A form post of a signed-in customer: the session must be for this payment and carry the form's CSRF token. */
  private async act(paymentId: string, body: unknown, request: FastifyRequest, reply: FastifyReply, command: (session: Session) => Promise<void>) {
    const session = await this.boundSession(request, paymentId);
    const form = formOf(body);
    if (!session) return reply.send(sendPage(reply, page('Sign in first', '<h1>Sign in first</h1><p>Sign in on this payment’s page to continue.</p>'), 403));
    if (!form || !sameToken(form.get('csrf'), session.csrfToken)) return this.csrfRejected(reply);
    try {
      await command(session);
    } catch (error) {
      const code = error instanceof ServiceError && error.code in MESSAGES ? error.code : 'failed';
      return redirect(reply, `${PAGE}/${paymentId}?error=${code}`);
    }
    return redirect(reply, `${PAGE}/${paymentId}`);
  }

  private actions(payment: PaymentResource, session: Session | undefined, request: FastifyRequest, reply: FastifyReply): string {
    if (payment.status !== 'pending') {
      const back = new URL(payment.return_url);
      back.searchParams.set('payment_id', payment.id);
      const outcome = payment.status === 'succeeded' ? 'The payment is done.' : `The payment is ${payment.status}.`;
      return `<p class="notice">${escapeHtml(outcome)}</p><p><a href="${escapeHtml(back.toString())}">Return to the merchant</a></p>`;
    }
    if (!session) {
      const csrf = signInCsrfToken(request, reply);
      return `<h2>Sign in to pay</h2>
<form method="post" action="${escapeHtml(payment.id)}/sign-in">${hiddenCsrf(csrf)}
<label for="phone">${label('Phone number', 'Numéro de téléphone', 'رقم الهاتف')}</label><input id="phone" name="phone" type="tel" autocomplete="tel" required>
<label for="pin">${label('PIN', 'Code PIN', 'الرمز السري')}</label><input id="pin" name="pin" type="password" inputmode="numeric" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>`;
    }
    return `<form method="post" action="${escapeHtml(payment.id)}/authorize">${hiddenCsrf(session.csrfToken)}<button type="submit">Authorize ${escapeHtml(formatAmount(payment.amount, payment.currency))}</button></form>
<form method="post" action="${escapeHtml(payment.id)}/decline">${hiddenCsrf(session.csrfToken)}<button type="submit" class="secondary">Decline</button></form>`;
  }

  private async boundSession(request: FastifyRequest, paymentId: string): Promise<Session | undefined> {
    const session = await this.gateway.sessions.current(request);
    return session?.kind === 'customer' && session.objectId === paymentId ? session : undefined;
  }

  private async find(paymentId: string): Promise<PaymentResource | undefined> {
    try {
      return await this.gateway.bus.request('payments.retrieve', { integratorId: null, paymentId });
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'resource_not_found') return undefined;
      throw error;
    }
  }

  private csrfRejected(reply: FastifyReply) {
    return reply.send(sendPage(reply, page('Form expired', '<h1>This form has expired</h1><p>Go back, reload the page and try again.</p>'), 403));
  }
}

export const formOf = (body: unknown): URLSearchParams | undefined => (body instanceof URLSearchParams ? body : undefined);

/** Constant-time comparison of a form's token with the expected one (byte lengths: timingSafeEqual throws on unequal ones). */
export const sameToken = (given: string | null | undefined, expected: string | undefined): boolean => {
  if (typeof given !== 'string' || typeof expected !== 'string' || given.length === 0) return false;
  const [a, b] = [Buffer.from(given), Buffer.from(expected)];
  return a.length === b.length && timingSafeEqual(a, b);
};
