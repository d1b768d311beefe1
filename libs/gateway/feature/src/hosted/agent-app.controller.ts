import { Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, type CashPaymentResource, type CollectionResource } from '@pay/contracts';
import type { MessageKey } from '@pay/hosted-ui';
import { decimalAmount } from '@pay/kernel';
import type { Agent } from '../directory/people.repository';
import { GatewayCore } from '../gateway.core';
import { latinDigits, parseAmount } from './amounts';
import { errorMessage, formOf, notFoundAsUndefined, redirect, refusalCode, sameToken, seeOther } from './forms';
import { HostedPages } from './hosted-pages';
import { readCookie, SIGN_IN_CSRF_COOKIE, signInCsrfToken, type Session } from './sessions';
import { SIGN_IN_LOCK_MINUTES } from './sign-in-limiter';

const APP = '/hosted/agent';

/** The application's `?error=` codes and their messages. */
const ERRORS: Readonly<Record<string, MessageKey>> = {
  sign_in: 'error.sign_in_password',
  locked: 'error.locked_password',
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

interface AgentSession {
  session: Session;
  agent: Agent;
}

/**
 * The cash agents' application at /hosted/agent. An agent signs in (login and password) for the cash
 * point they belong to; the session is bound to the agent and that cash point. A cashier finds a cash
 * payment by its reference (typed, or scanned where the browser can: the form works without script),
 * validates the exact cash (cash.cash-payments.pay, the sandbox helper's command) and reads the
 * receipt number; validates the deposit of a collection whose deposit point is this cash point
 * (collections.validate-deposit). A carrier confirms a collection's handover with the code the
 * recipient gives them (collections.confirm-handover).
 */
@Controller('hosted/agent')
export class AgentAppController {
  constructor(
    private readonly gateway: GatewayCore,
    private readonly pages: HostedPages,
  ) {}

  @Get()
  async home(@Query('error') error: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const signedIn = await this.agentSession(request);
    const shown = errorMessage(ERRORS, error, { minutes: SIGN_IN_LOCK_MINUTES });
    if (!signedIn) {
      return this.pages.render(request, reply, 'agent-sign-in', { csrf: signInCsrfToken(request, reply), error: shown }, { title: ['agent.sign_in_title'] });
    }
    const { session, agent } = signedIn;
    const cashier = agent.role === 'cashier';
    return this.pages.render(
      request,
      reply,
      'agent-home',
      { agentName: agent.name, roleKey: `role.${agent.role}`, cashier, point: await this.cashPointName(agent.cashPoint), csrf: session.csrfToken, error: shown },
      { title: ['agent.title'], scanner: cashier },
    );
  }

  @Post('sign-in')
  async signIn(@Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const form = formOf(body);
    if (!form || !sameToken(form.get('csrf'), readCookie(request, SIGN_IN_CSRF_COOKIE))) return this.pages.formExpired(request, reply);
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
        const reference = latinDigits(form.get('reference') ?? '').slice(0, 40);
        const payment = await this.gateway.bus.request('cash.cash-payments.find-by-reference', { reference });
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
    const payment = await this.findCashPaymentById(cashPaymentId);
    if (!payment) return this.pages.message(request, reply, 404, { heading: 'agent.cash_payment_not_found', text: 'page.not_found_text', link: { href: APP, label: 'layout.back' } });
    const merchant = (await this.gateway.directory.findConnection(payment.merchant_connection))?.name ?? payment.merchant_connection;
    return this.pages.render(
      request,
      reply,
      'agent-cash-payment',
      {
        payment,
        reference: groupReference(payment.payment_reference),
        merchant,
        statusKey: `status.cash_payment.${payment.status}`,
        csrf: signedIn.session.csrfToken,
        error: errorMessage(ERRORS, error, { example: decimalAmount(payment.amount, payment.currency) }),
      },
      { title: ['agent.cash_payment_heading'] },
    );
  }

  @Post('cash_payments/:id/pay')
  async pay(@Param('id') cashPaymentId: string, @Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const back = `${APP}/cash_payments/${encodeURIComponent(cashPaymentId)}`;
    return this.post(body, request, reply, 'cashier', async (form, { agent }) => {
      const payment = await this.findCashPaymentById(cashPaymentId);
      if (!payment) return `${APP}?error=reference_unknown`;
      const amount = parseAmount(form.get('amount') ?? '', payment.currency);
      if (amount === undefined) return `${back}?error=amount_format`;
      return this.run(back, () => this.gateway.bus.request('cash.cash-payments.pay', { integratorId: null, cashPaymentId, cashPointId: agent.cashPoint, amount }));
    });
  }

  @Post('find-collection')
  async findCollection(@Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.post(body, request, reply, 'cashier', async (form, { agent }) => {
      const collection = await this.findCollectionById((form.get('collection') ?? '').trim());
      if (!collection) return `${APP}?error=collection_unknown`;
      const refused = depositRefusal(collection, agent);
      return refused ? `${APP}?error=${refused}` : `${APP}/collections/${encodeURIComponent(collection.id)}`;
    });
  }

  @Get('collections/:id')
  async collection(@Param('id') collectionId: string, @Query('error') error: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const signedIn = await this.agentSession(request);
    if (!signedIn) return seeOther(reply, APP);
    const collection = await this.findCollectionById(collectionId);
    if (!collection) return this.pages.message(request, reply, 404, { heading: 'agent.collection_not_found', text: 'page.not_found_text', link: { href: APP, label: 'layout.back' } });
    const { agent, session } = signedIn;
    // A cashier sees only the collections to deposit at their cash point; a carrier only the status after a handover.
    if (agent.role === 'cashier' && collection.deposit?.point !== agent.cashPoint) return seeOther(reply, `${APP}?error=not_your_point`);
    const recipient = (await this.gateway.directory.findConnection(collection.beneficiary_connection))?.name ?? collection.beneficiary_connection;
    const canValidate = agent.role === 'cashier' && collection.status === 'collected_awaiting_deposit';
    return this.pages.render(
      request,
      reply,
      'agent-collection',
      {
        collection,
        recipient,
        statusKey: `status.collection.${collection.status}`,
        canValidate,
        notice: canValidate ? null : COLLECTION_NOTICE[collection.status],
        csrf: session.csrfToken,
        error: errorMessage(ERRORS, error, { example: decimalAmount(collection.amount, collection.currency), minutes: SIGN_IN_LOCK_MINUTES }),
      },
      { title: ['field.collection'] },
    );
  }

  @Post('collections/:id/validate-deposit')
  async validateDeposit(@Param('id') collectionId: string, @Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const back = `${APP}/collections/${encodeURIComponent(collectionId)}`;
    return this.post(body, request, reply, 'cashier', async (form, { agent }) => {
      const collection = await this.findCollectionById(collectionId);
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
      const collection = await this.findCollectionById((form.get('collection') ?? '').trim());
      if (!collection) return `${APP}?error=collection_unknown`;
      const attempts = `handover:${collection.id}`;
      if (!(await this.gateway.signIns.attempt(attempts))) return `${APP}?error=handover_locked`;
      if (!(await this.gateway.handoverCodes.matches(collection.id, latinDigits(form.get('code') ?? '').slice(0, 20)))) {
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
    if (!signedIn) return this.pages.sendMessage(request, reply, 403, { heading: 'page.sign_in_first', text: 'agent.sign_in_first_text', link: { href: APP, label: 'action.sign_in' } });
    if (!form || !sameToken(form.get('csrf'), signedIn.session.csrfToken)) return this.pages.formExpired(request, reply);
    if (role !== null && signedIn.agent.role !== role) return redirect(reply, `${APP}?error=role`);
    return redirect(reply, await handle(form, signedIn));
  }

  /** Runs a command; on a refusal, back to the page with the reason. */
  private async run(back: string, command: () => Promise<unknown>): Promise<string> {
    try {
      await command();
      return back;
    } catch (error) {
      return `${back}?error=${refusalCode(error, ERRORS)}`;
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

  private findCashPaymentById(cashPaymentId: string): Promise<CashPaymentResource | undefined> {
    return notFoundAsUndefined(() => this.gateway.bus.request('cash.cash-payments.retrieve', { integratorId: null, cashPaymentId }));
  }

  private async findCollectionById(collectionId: string): Promise<CollectionResource | undefined> {
    if (!/^col_[A-Za-z0-9]{1,64}$/.test(collectionId)) return undefined;
    return notFoundAsUndefined(() => this.gateway.bus.request('collections.retrieve', { integratorId: null, collectionId }));
  }
}

/** What an agent is told about a collection, by status. */
const COLLECTION_NOTICE: Readonly<Record<CollectionResource['status'], MessageKey | null>> = {
  awaiting_collection: null,
  collected_awaiting_deposit: 'agent.handover_done',
  deposit_under_review: 'agent.deposit_review',
  settled: 'agent.deposit_settled',
};

/** Why this agent may not validate this collection's deposit, if so. */
const depositRefusal = (collection: CollectionResource, agent: Agent): string | undefined =>
  collection.deposit === null ? 'not_collected' : collection.deposit.point !== agent.cashPoint ? 'not_your_point' : undefined;

/** `4821093756` → `482 109 3756`, as on the instructions page. */
const groupReference = (reference: string): string => `${reference.slice(0, 3)} ${reference.slice(3, 6)} ${reference.slice(6)}`;
