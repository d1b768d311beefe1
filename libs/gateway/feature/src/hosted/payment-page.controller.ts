import { Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, type PaymentResource } from '@pay/contracts';
import type { MessageKey } from '@pay/hosted-ui';
import { GatewayCore } from '../gateway.core';
import { errorMessage, formOf, notFoundAsUndefined, redirect, refusalCode, sameToken } from './forms';
import { HostedPages } from './hosted-pages';
import { readCookie, SIGN_IN_CSRF_COOKIE, signInCsrfToken, type Session } from './sessions';
import { SIGN_IN_LOCK_MINUTES } from './sign-in-limiter';
import type { GatewayViews } from './view-models';

const PAGE = '/hosted/payments';

/** This page's `?error=` codes and their messages. */
const ERRORS: Readonly<Record<string, MessageKey>> = {
  sign_in: 'error.sign_in_pin',
  locked: 'error.locked_pin',
  currency_mismatch: 'error.currency_mismatch',
  invalid_status: 'error.payment_invalid_status',
  failed: 'error.failed',
};

/**
 * The customer's page at authorization_url: the merchant, the amount, a sign-in (phone and PIN), then
 * Authorize or Decline. It runs the same commands as the sandbox helpers (payments.authorize,
 * payments.decline). The session is bound to this payment: signing in here authorizes nothing else.
 */
@Controller('hosted/payments')
export class PaymentPageController {
  constructor(
    private readonly gateway: GatewayCore,
    private readonly pages: HostedPages,
  ) {}

  @Get(':id')
  async show(@Param('id') paymentId: string, @Query('error') error: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const payment = await this.find(paymentId);
    if (!payment) return this.pages.message(request, reply, 404, { heading: 'page.not_found', text: 'page.not_found_text' });
    const merchant = (await this.gateway.directory.findConnection(payment.merchant_connection))?.name ?? payment.merchant_connection;
    const session = await this.boundSession(request, paymentId);
    const step = payment.status !== 'pending' ? 'done' : session ? 'confirm' : 'sign_in';
    return this.pages.render(
      request,
      reply,
      'payment',
      {
        payment,
        merchant,
        statusKey: `status.payment.${payment.status}`,
        step,
        outcome: step === 'done' ? outcomeOf(payment, merchant) : null,
        returnUrl: step === 'done' ? returnUrlOf(payment) : null,
        csrf: step === 'sign_in' ? signInCsrfToken(request, reply) : (session?.csrfToken ?? ''),
        error: errorMessage(ERRORS, error, { minutes: SIGN_IN_LOCK_MINUTES }),
      },
      { title: ['payment.title', { merchant }] },
    );
  }

  @Post(':id/sign-in')
  async signIn(@Param('id') paymentId: string, @Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const form = formOf(body);
    if (!form || !sameToken(form.get('csrf'), readCookie(request, SIGN_IN_CSRF_COOKIE))) return this.pages.formExpired(request, reply);
    const payment = await this.find(paymentId);
    if (!payment) return this.pages.sendMessage(request, reply, 404, { heading: 'page.not_found', text: 'page.not_found_text' });
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
    if (!session) return this.pages.sendMessage(request, reply, 403, { heading: 'page.sign_in_first', text: 'page.sign_in_first_text' });
    if (!form || !sameToken(form.get('csrf'), session.csrfToken)) return this.pages.formExpired(request, reply);
    try {
      await command(session);
    } catch (error) {
      return redirect(reply, `${PAGE}/${paymentId}?error=${refusalCode(error, ERRORS)}`);
    }
    return redirect(reply, `${PAGE}/${paymentId}`);
  }

  private async boundSession(request: FastifyRequest, paymentId: string): Promise<Session | undefined> {
    const session = await this.gateway.sessions.current(request);
    return session?.kind === 'customer' && session.objectId === paymentId ? session : undefined;
  }

  private find(paymentId: string): Promise<PaymentResource | undefined> {
    return notFoundAsUndefined(() => this.gateway.bus.request('payments.retrieve', { integratorId: null, paymentId }));
  }
}

/** What the customer is told once the payment is no longer pending. */
const outcomeOf = (payment: PaymentResource, merchant: string): GatewayViews['payment']['outcome'] => {
  const params = { merchant };
  switch (payment.status) {
    case 'succeeded':
      return { key: 'payment.done_succeeded', params, success: true };
    case 'declined':
      return { key: 'payment.done_declined', params, success: false };
    case 'canceled':
      return { key: 'payment.done_canceled', params, success: false };
    default:
      return { key: 'payment.done_expired', params, success: false };
  }
};

/** The merchant's return_url (https, validated at create) with the payment's id: the merchant must still confirm it server-side. */
const returnUrlOf = (payment: PaymentResource): string => {
  const back = new URL(payment.return_url);
  back.searchParams.set('payment_id', payment.id);
  return back.toString();
};
