import { Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, type CashPaymentResource, type CollectionResource } from '@pay/contracts';
import { CURRENCY_SCALE, type Currency } from '@pay/kernel';
import type { Agent } from '../directory/people.repository';
import { GatewayCore } from '../gateway.core';
import { csrfRejected } from './approval-page.controller';
import { escapeHtml, formatAmount, formatDate, hiddenCsrf, label, page, redirect, rows, sendPage } from './html';
import { formOf, sameToken } from './payment-page.controller';
import { readCookie, SIGN_IN_CSRF_COOKIE, signInCsrfToken, type Session } from './sessions';

const APP = '/hosted/agent';

const MESSAGES: Record<string, string> = {
  sign_in: 'The login or password is not right.',
  locked: 'Too many wrong passwords: sign-in is locked for 15 minutes.',
  reference_mistyped: 'This reference is mistyped: a reference is 10 digits and its last digit is a check digit. Check it with the customer and type it again.',
  reference_unknown: 'No cash payment has this reference.',
  collection_unknown: 'No collection has this id.',
  not_your_point: 'This collection’s cash is to be deposited at another cash point: it cannot be validated here.',
  not_collected: 'This collection has not been handed over yet: there is no deposit to validate.',
  amount_format: 'Type the amount in the currency’s units, for example 12500.00.',
  invalid_amount: 'The amount is not the exact amount due: nothing was validated. Count the cash again.',
  invalid_status: 'This operation is no longer possible in the current status.',
  handover_code: 'The handover code is not right.',
  handover_locked: 'Too many wrong codes for this collection: handover is locked for 15 minutes.',
  role: 'Your role does not allow this operation.',
  failed: 'The operation could not be completed. Nothing changed; please try again.',
};

interface AgentSession {
  session: Session;
  agent: Agent;
}

/**
 * The cash agents' application at /hosted/agent. An agent signs in (login and password) for the cash
 * point they belong to; the session is bound to the agent and that cash point. A cashier finds a cash
 * payment by its reference (check digit verified), validates the exact cash (cash.cash-payments.pay, the
 * sandbox helper's command) and reads the receipt number; validates the deposit of a collection whose
 * deposit point is this cash point (collections.validate-deposit). A carrier confirms a collection's
 * handover with the code the recipient gives them (collections.confirm-handover). Forms without scripts.
 */
@Controller('hosted/agent')
export class AgentAppController {
  constructor(private readonly gateway: GatewayCore) {}

  @Get()
  async home(@Query('error') error: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const signedIn = await this.agentSession(request);
    if (!signedIn) {
      const csrf = signInCsrfToken(request, reply);
      return sendPage(
        reply,
        page(
          'Cash agent sign-in',
          `<h1>Cash agent</h1>${message(error)}
<form method="post" action="${APP}/sign-in">${hiddenCsrf(csrf)}
<label for="login">${label('Login', 'Identifiant', 'اسم المستخدم')}</label><input id="login" name="login" type="text" autocomplete="username" autocapitalize="none" required>
<label for="password">${label('Password', 'Mot de passe', 'كلمة المرور')}</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>`,
        ),
      );
    }
    const { session, agent } = signedIn;
    const point = await this.cashPointName(agent.cashPoint);
    const forms =
      agent.role === 'cashier'
        ? `<h2>Cash payment</h2>
<form method="post" action="${APP}/find-cash-payment">${hiddenCsrf(session.csrfToken)}
<label for="reference">${label('Payment reference', 'Référence de paiement', 'مرجع الدفع')}</label><input id="reference" name="reference" type="text" inputmode="numeric" autocomplete="off" required>
<button type="submit">Find the payment</button></form>
<h2>Deposit of a collection</h2>
<form method="post" action="${APP}/find-collection">${hiddenCsrf(session.csrfToken)}
<label for="collection">${label('Collection id', 'Identifiant de collecte', 'معرف التحصيل')}</label><input id="collection" name="collection" type="text" autocomplete="off" autocapitalize="none" required>
<button type="submit">Find the collection</button></form>`
        : `<h2>Confirm a handover</h2>
<form method="post" action="${APP}/handover">${hiddenCsrf(session.csrfToken)}
<label for="collection">${label('Collection id', 'Identifiant de collecte', 'معرف التحصيل')}</label><input id="collection" name="collection" type="text" autocomplete="off" autocapitalize="none" required>
<label for="code">${label('Handover code from the recipient', 'Code de remise du destinataire', 'رمز التسليم من المستلم')}</label><input id="code" name="code" type="text" inputmode="numeric" autocomplete="off" required>
<button type="submit">Confirm the handover</button></form>`;
    return sendPage(
      reply,
      page(
        'Cash agent',
        `<h1>Cash agent</h1>${rows([
          [label('Agent', 'Agent', 'الوكيل'), escapeHtml(agent.name)],
          [label('Cash point', 'Point de paiement', 'نقطة الدفع'), escapeHtml(point)],
          [label('Role', 'Rôle', 'الدور'), escapeHtml(agent.role)],
        ])}${message(error)}${forms}${signOutForm(session)}`,
      ),
    );
  }

  @Post('sign-in')
  async signIn(@Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const form = formOf(body);
    if (!form || !sameToken(form.get('csrf'), readCookie(request, SIGN_IN_CSRF_COOKIE))) return csrfRejected(reply);
    const loginName = (form.get('login') ?? '').trim().slice(0, 200);
    const login = `agent:${loginName}`;
    if (!(await this.gateway.signIns.attempt(login))) return redirect(reply, `${APP}?error=locked`);
    const agent = loginName ? await this.gateway.people.signInAgent(loginName, (form.get('password') ?? '').slice(0, 200)) : undefined;
    if (!agent) {
      const locked = await this.gateway.signIns.failed(login);
      return redirect(reply, `${APP}?error=${locked ? 'locked' : 'sign_in'}`);
    }
    await this.gateway.signIns.succeeded(login);
    await this.gateway.sessions.open(reply, { kind: 'agent', subjectId: agent.id, objectId: agent.cashPoint });
    return redirect(reply, APP);
  }

  @Post('sign-out')
  async signOut(@Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.post(body, request, reply, null, async () => {
      await this.gateway.sessions.close(request, reply);
      return APP;
    });
  }

  @Post('find-cash-payment')
  async findCashPayment(@Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.post(body, request, reply, 'cashier', async (form) => {
      try {
        const payment = await this.gateway.bus.request('cash.cash-payments.find-by-reference', { reference: (form.get('reference') ?? '').slice(0, 40) });
        return `${APP}/cash_payments/${encodeURIComponent(payment.id)}`;
      } catch (error) {
        if (error instanceof ServiceError && error.code === 'invalid_request') return `${APP}?error=reference_mistyped`;
        if (error instanceof ServiceError && error.code === 'resource_not_found') return `${APP}?error=reference_unknown`;
        throw error;
      }
    });
  }

  @Get('cash_payments/:id')
  async cashPayment(@Param('id') cashPaymentId: string, @Query('error') error: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const signedIn = await this.agentSession(request);
    if (!signedIn || signedIn.agent.role !== 'cashier') return seeOther(reply, APP);
    const payment = await this.findCashPayment_(cashPaymentId);
    if (!payment) return sendPage(reply, page('Not found', `<h1>Cash payment not found</h1><p><a href="${APP}">Back</a></p>`), 404);
    const merchant = await this.gateway.directory.findConnection(payment.merchant_connection);
    const details = rows([
      [label('Merchant', 'Marchand', 'التاجر'), escapeHtml(merchant?.name ?? payment.merchant_connection)],
      [label('Reference', 'Référence', 'المرجع'), escapeHtml(groupReference(payment.payment_reference))],
      [label('Amount to collect', 'Montant à encaisser', 'المبلغ المطلوب'), `<strong>${escapeHtml(formatAmount(payment.amount, payment.currency))}</strong>`],
      [label('Pay before', 'À payer avant', 'آخر أجل'), escapeHtml(formatDate(payment.expires_at))],
      [label('Status', 'Statut', 'الحالة'), `<span class="status">${escapeHtml(payment.status)}</span>`],
      ...(payment.receipt_number === null
        ? []
        : ([[label('Receipt number', 'Numéro de reçu', 'رقم الإيصال'), `<strong class="receipt">${escapeHtml(payment.receipt_number)}</strong>`]] as [string, string][])),
    ]);
    const action =
      payment.status === 'awaiting_payment'
        ? `<form method="post" action="${escapeHtml(payment.id)}/pay">${hiddenCsrf(signedIn.session.csrfToken)}
<label for="amount">${label(`Cash received (${payment.currency})`, `Espèces reçues (${payment.currency})`, `المبلغ المستلم (${payment.currency})`)}</label><input id="amount" name="amount" type="text" inputmode="decimal" autocomplete="off" required>
<button type="submit">Validate the cash</button></form>`
        : payment.status === 'succeeded'
          ? `<p class="notice" role="status">Cash validated. Give the customer receipt number <strong>${escapeHtml(payment.receipt_number ?? '')}</strong>.</p>`
          : `<p class="error">This cash payment is ${escapeHtml(payment.status)}: do not take the cash.</p>`;
    return sendPage(reply, page(`Cash payment ${payment.payment_reference}`, `<h1>Cash payment</h1>${details}${message(error)}${action}<p><a href="${APP}">Back</a></p>`));
  }

  @Post('cash_payments/:id/pay')
  async pay(@Param('id') cashPaymentId: string, @Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const back = `${APP}/cash_payments/${encodeURIComponent(cashPaymentId)}`;
    return this.post(body, request, reply, 'cashier', async (form, { agent }) => {
      const payment = await this.findCashPayment_(cashPaymentId);
      if (!payment) return `${APP}?error=reference_unknown`;
      const amount = parseAmount(form.get('amount') ?? '', payment.currency);
      if (amount === undefined) return `${back}?error=amount_format`;
      return this.run(back, () => this.gateway.bus.request('cash.cash-payments.pay', { integratorId: null, cashPaymentId, cashPointId: agent.cashPoint, amount }));
    });
  }

  @Post('find-collection')
  async findCollection(@Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.post(body, request, reply, 'cashier', async (form, { agent }) => {
      const collection = await this.findCollection_((form.get('collection') ?? '').trim());
      if (!collection) return `${APP}?error=collection_unknown`;
      const refused = depositRefusal(collection, agent);
      return refused ? `${APP}?error=${refused}` : `${APP}/collections/${encodeURIComponent(collection.id)}`;
    });
  }

  @Get('collections/:id')
  async collection(@Param('id') collectionId: string, @Query('error') error: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const signedIn = await this.agentSession(request);
    if (!signedIn) return seeOther(reply, APP);
    const collection = await this.findCollection_(collectionId);
    if (!collection) return sendPage(reply, page('Not found', `<h1>Collection not found</h1><p><a href="${APP}">Back</a></p>`), 404);
    const { agent, session } = signedIn;
    // A cashier sees only the collections to deposit at their cash point; a carrier only the status after a handover.
    if (agent.role === 'cashier' && collection.deposit?.point !== agent.cashPoint) return seeOther(reply, `${APP}?error=not_your_point`);
    const deposit = collection.deposit;
    const details = rows([
      [label('Collection', 'Collecte', 'التحصيل'), escapeHtml(collection.id)],
      [label('Order', 'Commande', 'الطلب'), escapeHtml(collection.order_reference)],
      [label('Amount expected', 'Montant attendu', 'المبلغ المتوقع'), `<strong>${escapeHtml(formatAmount(collection.amount, collection.currency))}</strong>`],
      ...(deposit === null ? [] : ([[label('Deposit due', 'Dépôt avant', 'آخر أجل للإيداع'), escapeHtml(formatDate(deposit.due_at))]] as [string, string][])),
      ...(deposit?.amount_received == null
        ? []
        : ([[label('Amount received', 'Montant reçu', 'المبلغ المستلم'), escapeHtml(formatAmount(deposit.amount_received, collection.currency))]] as [string, string][])),
      [label('Status', 'Statut', 'الحالة'), `<span class="status">${escapeHtml(collection.status)}</span>`],
    ]);
    const action =
      agent.role === 'cashier' && collection.status === 'collected_awaiting_deposit'
        ? `<form method="post" action="${escapeHtml(collection.id)}/validate-deposit">${hiddenCsrf(session.csrfToken)}
<label for="amount">${label(`Cash received (${collection.currency})`, `Espèces reçues (${collection.currency})`, `المبلغ المستلم (${collection.currency})`)}</label><input id="amount" name="amount" type="text" inputmode="decimal" autocomplete="off" required>
<button type="submit">Validate the deposit</button></form>`
        : collection.status === 'settled'
          ? '<p class="notice" role="status">Deposit validated: the collection is settled.</p>'
          : collection.status === 'deposit_under_review'
            ? '<p class="notice" role="status">The amount received differs from the amount expected: the deposit is under review by the back office.</p>'
            : collection.status === 'collected_awaiting_deposit'
              ? '<p class="notice" role="status">Handover confirmed: the cash is on its way to the cash point.</p>'
              : '';
    return sendPage(reply, page(`Collection ${collection.order_reference}`, `<h1>Collection</h1>${details}${message(error)}${action}<p><a href="${APP}">Back</a></p>`));
  }

  @Post('collections/:id/validate-deposit')
  async validateDeposit(@Param('id') collectionId: string, @Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const back = `${APP}/collections/${encodeURIComponent(collectionId)}`;
    return this.post(body, request, reply, 'cashier', async (form, { agent }) => {
      const collection = await this.findCollection_(collectionId);
      if (!collection) return `${APP}?error=collection_unknown`;
      const refused = depositRefusal(collection, agent);
      if (refused) return `${APP}?error=${refused}`;
      const amountReceived = parseAmount(form.get('amount') ?? '', collection.currency, true);
      if (amountReceived === undefined) return `${back}?error=amount_format`;
      return this.run(back, () => this.gateway.bus.request('collections.validate-deposit', { integratorId: null, collectionId, amountReceived }, { timeoutMs: 30_000 }));
    });
  }

  /** The carrier types the collection id and the recipient's code; wrong codes lock that collection's handover after five. */
  @Post('handover')
  async handover(@Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.post(body, request, reply, 'carrier', async (form) => {
      const collection = await this.findCollection_((form.get('collection') ?? '').trim());
      if (!collection) return `${APP}?error=collection_unknown`;
      const attempts = `handover:${collection.id}`;
      if (!(await this.gateway.signIns.attempt(attempts))) return `${APP}?error=handover_locked`;
      if (!(await this.gateway.handoverCodes.matches(collection.id, (form.get('code') ?? '').slice(0, 20)))) {
        return `${APP}?error=${(await this.gateway.signIns.failed(attempts)) ? 'handover_locked' : 'handover_code'}`;
      }
      await this.gateway.signIns.succeeded(attempts);
      const back = `${APP}/collections/${encodeURIComponent(collection.id)}`;
      const done = await this.run(back, () => this.gateway.bus.request('collections.confirm-handover', { integratorId: null, collectionId: collection.id }));
      return done === back ? back : `${APP}?error=${new URL(done, 'http://x').searchParams.get('error') ?? 'failed'}`;
    });
  }

  /**
   * A form post of a signed-in agent (of `role`, when given): the session must be an agent's, still for
   * their cash point, and carry the form's CSRF token. `handle` answers where to go next (303).
   */
  private async post(
    body: unknown,
    request: FastifyRequest,
    reply: FastifyReply,
    role: Agent['role'] | null,
    handle: (form: URLSearchParams, signedIn: AgentSession) => Promise<string>,
  ) {
    const signedIn = await this.agentSession(request);
    const form = formOf(body);
    if (!signedIn) return reply.send(sendPage(reply, page('Sign in first', `<h1>Sign in first</h1><p><a href="${APP}">Sign in</a> to continue.</p>`), 403));
    if (!form || !sameToken(form.get('csrf'), signedIn.session.csrfToken)) return csrfRejected(reply);
    if (role !== null && signedIn.agent.role !== role) return redirect(reply, `${APP}?error=role`);
    return redirect(reply, await handle(form, signedIn));
  }

  /** Runs a command; on a refusal, back to the page with the reason. */
  private async run(back: string, command: () => Promise<unknown>): Promise<string> {
    try {
      await command();
      return back;
    } catch (error) {
      const code = error instanceof ServiceError && error.code in MESSAGES ? error.code : 'failed';
      return `${back}?error=${code}`;
    }
  }

  private async agentSession(request: FastifyRequest): Promise<AgentSession | undefined> {
    const session = await this.gateway.sessions.current(request);
    if (session?.kind !== 'agent') return undefined;
    const agent = await this.gateway.people.findAgent(session.subjectId);
    return agent && agent.cashPoint === session.objectId ? { session, agent } : undefined;
  }

  private async cashPointName(cashPointId: string): Promise<string> {
    try {
      return (await this.gateway.bus.request('cash.cash-points.retrieve', { cashPointId })).name;
    } catch {
      return cashPointId;
    }
  }

  private async findCashPayment_(cashPaymentId: string): Promise<CashPaymentResource | undefined> {
    return notFoundAsUndefined(() => this.gateway.bus.request('cash.cash-payments.retrieve', { integratorId: null, cashPaymentId }));
  }

  private async findCollection_(collectionId: string): Promise<CollectionResource | undefined> {
    if (!/^col_[A-Za-z0-9]{1,64}$/.test(collectionId)) return undefined;
    return notFoundAsUndefined(() => this.gateway.bus.request('collections.retrieve', { integratorId: null, collectionId }));
  }
}

/** A 303 from a GET handler whose return value is the body. */
const seeOther = (reply: FastifyReply, location: string): string => {
  void reply.status(303).header('Location', location).header('Cache-Control', 'no-store');
  return '';
};

const notFoundAsUndefined = async <T>(read: () => Promise<T>): Promise<T | undefined> => {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'resource_not_found') return undefined;
    throw error;
  }
};

/** Why this agent may not validate this collection's deposit, if so. */
const depositRefusal = (collection: CollectionResource, agent: Agent): string | undefined =>
  collection.deposit === null ? 'not_collected' : collection.deposit.point !== agent.cashPoint ? 'not_your_point' : undefined;

const message = (error: unknown): string =>
  typeof error === 'string' && Object.hasOwn(MESSAGES, error) ? `<p class="error" role="alert">${escapeHtml(MESSAGES[error]!)}</p>` : '';

const signOutForm = (session: Session): string =>
  `<form method="post" action="${APP}/sign-out">${hiddenCsrf(session.csrfToken)}<button type="submit" class="secondary">Sign out</button></form>`;

/** `4821093756` → `482 109 3756`, as on the instructions page. */
const groupReference = (reference: string): string => `${reference.slice(0, 3)} ${reference.slice(3, 6)} ${reference.slice(6)}`;

/**
 * An amount typed in the currency's units ("12 500.00", "12500,5", "1500" XOF) as minor units; spaces
 * ignored; at most the currency's decimals. Undefined when it is not one (0 only when `zeroAllowed`).
 */
export const parseAmount = (typed: string, currency: Currency, zeroAllowed = false): number | undefined => {
  const text = typed.replace(/[\s\u202f\u00a0]/g, '').replace(',', '.');
  const scale = CURRENCY_SCALE[currency];
  const match = /^(\d{1,15})(?:\.(\d+))?$/.exec(text);
  if (!match || (match[2] ?? '').length > scale) return undefined;
  const minor = Number(match[1]) * 10 ** scale + Number((match[2] ?? '').padEnd(scale, '0') || '0');
  if (!Number.isSafeInteger(minor) || (minor === 0 && !zeroAllowed)) return undefined;
  return minor;
};
