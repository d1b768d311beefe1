import { Body, Controller, Get, Inject, Param, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { ServiceError, type PaymentResource } from '@pay/contracts';
import type { MessageKey } from '@pay/hosted-ui';
import { SIGN_IN_FAILURES_MAX, SIGN_IN_LOCK_MS } from '@pay/kernel';
import { DirectoryRepository } from '../directory/directory.repository';
import { errorMessage, notFoundAsUndefined, redirect } from './forms';
import { runPageAction } from './page-actions';
import { phoneExample, typedPhone } from './phones';
import { returnUrlWith } from './return-url';
import { readCookie, SessionStore, setCookie, signInCsrfToken, signInFormOf, type Session } from './stores/sessions';
import { attemptsLeftParam, lockWarning, SignInAttempts } from './stores/sign-in-attempts';
import { sendSignInRefusal, PIN_LOCK_ERRORS } from './sign-in-refusals';
import { SIGN_IN_LOCK_MINUTES, SignInLimiter } from './stores/sign-in-limiter';
import { HostedPages } from './views/hosted-pages';
import type { GatewayViews } from './views/view-models';
import { HostedErrorPages } from './views/hosted-error-pages';
import { authorizeWith } from '../api/authorize';

const PAGE = '/hosted/payments';
/**
 * The phone as typed, kept in the customer's browser after a refused sign-in so that the form shows
 * it again (never in the URL, which servers and proxies log); as long as a lock.
 */
const TYPED_PHONE_COOKIE = 'pay_phone';
const TYPED_PHONE_LENGTH_MAX = 40;

/** This page's `?error=` codes and their messages. */
const ERRORS: Readonly<Record<string, MessageKey>> = {
  sign_in: 'error.sign_in_pin',
  ...PIN_LOCK_ERRORS,
  currency_mismatch: 'error.currency_mismatch',
  invalid_status: 'error.payment_invalid_status',
  failed: 'error.failed',
};

/** Refusals the page answers with itself and a 400, not a redirect: the contract's `400 currency_mismatch`. */
const IN_PLACE_ERRORS: readonly string[] = ['currency_mismatch'];

/**
 * The customer's page at authorization_url: the merchant, the amount, a sign-in (phone and PIN), then
 * Authorize or Decline. It runs the same commands as the sandbox helpers (payments.authorize,
 * payments.decline). The session is bound to this payment: signing in here authorizes nothing else.
 */
@UseFilters(HostedErrorPages)
@Controller('hosted/payments')
export class PaymentPageController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly directory: DirectoryRepository,
    private readonly sessions: SessionStore,
    private readonly signIns: SignInLimiter,
    private readonly attempts: SignInAttempts,
    private readonly pages: HostedPages,
  ) {
    this.authorizePayment = authorizeWith(bus);
  }

  /** Made once: batchingRequest's batches are shared per bus. */
  private readonly authorizePayment: ReturnType<typeof authorizeWith>;

  @Get(':id')
  async show(@Param('id') paymentId: string, @Query('error') error: unknown, @Query('left') left: unknown, @Query('lock') lock: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.page(request, reply, paymentId, { error, left, lock });
  }

  /** The payment's page; `error`, `left` and `lock` as in its query; answering a POST, with its status and its GET address. */
  private async page(request: FastifyRequest, reply: FastifyReply, paymentId: string, { error, left, lock }: { error: unknown; left?: unknown; lock?: unknown }, status?: number): Promise<string> {
    const payment = await this.find(paymentId);
    if (!payment) return this.pages.message(request, reply, 404, { heading: 'page.not_found', text: 'page.not_found_text' });
    const merchant = (await this.directory.findConnection(payment.merchant_connection))?.name ?? payment.merchant_connection;
    const session = await this.boundSession(request, paymentId);
    const step = payment.status !== 'pending' ? 'done' : session ? 'confirm' : 'sign_in';
    const customer = session ? await this.directory.findCustomerName(session.subjectId) : undefined;
    const failed = error === 'sign_in' || (typeof error === 'string' && Object.hasOwn(PIN_LOCK_ERRORS, error));
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
        phoneExample: phoneExample(payment.currency),
        signedInAs: session ? (customer ?? null) : null,
        typedPhone: step === 'sign_in' && failed ? (readCookie(request, TYPED_PHONE_COOKIE) ?? '').slice(0, TYPED_PHONE_LENGTH_MAX) : '',
        csrf: step === 'sign_in' ? signInCsrfToken(request, reply) : (session?.csrfToken ?? ''),
        error: errorMessage(ERRORS, error, { minutes: SIGN_IN_LOCK_MINUTES, attempts: SIGN_IN_FAILURES_MAX }),
        errorFields: failed && step === 'sign_in' ? ['phone', 'pin'] : [],
        lockWarning: step === 'sign_in' ? lockWarning(error, left, lock) : null,
      },
      { title: ['payment.title', { merchant }], ...(status ? { status, switchPath: `${PAGE}/${paymentId}` } : {}) },
    );
  }

  @Post(':id/sign-in')
  async signIn(@Param('id') paymentId: string, @Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const form = signInFormOf(body, request);
    if (!form) return this.pages.formExpired(request, reply, `${PAGE}/${paymentId}`);
    const payment = await this.find(paymentId);
    if (!payment) return this.pages.sendMessage(request, reply, 404, { heading: 'page.not_found', text: 'page.not_found_text' });
    const typed = (form.get('phone') ?? '').slice(0, TYPED_PHONE_LENGTH_MAX);
    // One number, however it is typed: the attempts are counted per number, in the payment's country.
    const phone = typedPhone(typed, payment.currency);
    const login = `customer:${phone.login}`;
    const signedIn = await this.signIns.signIn(login, request.ip, async () =>
      phone.candidates.length > 0 ? this.directory.signInCustomer(phone.candidates, form.get('pin') ?? '', payment.currency) : undefined,
    );
    if ('refused' in signedIn) {
      setCookie(reply, TYPED_PHONE_COOKIE, typed.trim(), SIGN_IN_LOCK_MS);
      const left = signedIn.refused === 'sign_in' ? attemptsLeftParam(await this.attempts.left(login)) : '';
      return sendSignInRefusal(this.pages, request, reply, signedIn.refused, `${PAGE}/${paymentId}`, left);
    }
    setCookie(reply, TYPED_PHONE_COOKIE, '', 0);
    await this.sessions.open(reply, { kind: 'customer', subjectId: signedIn.subject.id, objectId: paymentId });
    return redirect(reply, `${PAGE}/${paymentId}`);
  }

  /** Signs out (on a shared phone, the next person must not act in this customer's name); back to the page. */
  @Post(':id/sign-out')
  async signOut(@Param('id') paymentId: string, @Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    // As every action: no session is "sign in first", a form without its token "form expired".
    return this.act(paymentId, body, request, reply, () => this.sessions.close(request, reply));
  }

  @Post(':id/authorize')
  async authorize(@Param('id') paymentId: string, @Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.act(paymentId, body, request, reply, async (session) => {
      const customer = await this.directory.findCustomer(session.subjectId);
      if (!customer) throw new ServiceError('invalid_request', 'no such customer');
      await this.authorizePayment({ integratorId: null, paymentId, customer });
    });
  }

  @Post(':id/decline')
  async decline(@Param('id') paymentId: string, @Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.act(paymentId, body, request, reply, async () => {
      await this.bus.request('payments.decline', { integratorId: null, paymentId });
    });
  }

  /** A form post of a signed-in customer: the session must be for this payment and carry the form's CSRF token. */
  private async act(paymentId: string, body: unknown, request: FastifyRequest, reply: FastifyReply, command: (session: Session) => Promise<void>) {
    const session = await this.boundSession(request, paymentId);
    // The contract: a customer in another currency is answered 400 currency_mismatch, by the page itself.
    const inPlace = { codes: IN_PLACE_ERRORS, render: (code: string) => this.page(request, reply, paymentId, { error: code }, 400) };
    return runPageAction(this.pages, request, reply, { session, body, page: `${PAGE}/${paymentId}`, errors: ERRORS, inPlace }, command);
  }

  private async boundSession(request: FastifyRequest, paymentId: string): Promise<Session | undefined> {
    const session = await this.sessions.current(request);
    return session?.kind === 'customer' && session.objectId === paymentId ? session : undefined;
  }

  private find(paymentId: string): Promise<PaymentResource | undefined> {
    return notFoundAsUndefined(() => this.bus.request('payments.retrieve', { integratorId: null, paymentId }));
  }
}

/** What the customer is told once the payment is no longer pending. */
const outcomeOf = (payment: PaymentResource, merchant: string): GatewayViews['payment']['outcome'] => {
  const params = { merchant };
  switch (payment.status) {
    case 'succeeded':
      return { key: 'payment.done_succeeded', params, success: true };
    case 'declined':
      // Not enough money is not a refusal: the customer is told to top up, then pay again at the merchant's.
      return payment.decline_reason === 'insufficient_balance'
        ? { key: 'payment.done_insufficient', params, success: false }
        : { key: 'payment.done_declined', params, success: false };
    case 'canceled':
      return { key: 'payment.done_canceled', params, success: false };
    default:
      return { key: 'payment.done_expired', params, success: false };
  }
};

/** The merchant's return_url with the payment's id: the merchant must still confirm it server-side. */
const returnUrlOf = (payment: PaymentResource): string => returnUrlWith(payment.return_url, payment.id);
