import { Body, Controller, Get, Inject, Param, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { notFound } from '@pay/contracts';
import { parseTypedAmount } from '@pay/hosted-ui';
import { latinDigits, SETTLEMENT_REQUEST_TIMEOUT_MS, TYPED_CODE_LENGTH_MAX } from '@pay/kernel';
import { DirectoryRepository } from '../../directory/directory.repository';
import { seeOther } from '../forms';
import { HandoverCodes } from '../stores/handover-codes';
import { SignInLimiter } from '../stores/sign-in-limiter';
import { AgentReads, depositRefusal, runCommand } from './agent-reads';
import { AgentSessions } from './agent-sessions';
import { AGENT_APP, AgentViews, collectionPath } from './agent-views';
import { HostedErrorPages } from '../views/hosted-error-pages';

/**
 * Collections in the agents' application: a cashier validates the deposit of a collection whose
 * deposit point is their cash point (collections.validate-deposit); a carrier confirms a collection's
 * handover with the code the recipient gives them (collections.confirm-handover).
 */
@UseFilters(HostedErrorPages)
@Controller('hosted/agent')
export class AgentCollectionsController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly agentSessions: AgentSessions,
    private readonly directory: DirectoryRepository,
    private readonly signIns: SignInLimiter,
    private readonly handoverCodes: HandoverCodes,
    private readonly reads: AgentReads,
    private readonly views: AgentViews,
  ) {}

  @Post('find-collection')
  async findCollection(@Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.agentSessions.post(body, request, reply, 'cashier', async (form, { agent }) => {
      const collection = await this.reads.collection((form.get('collection') ?? '').trim());
      if (!collection) return `${AGENT_APP}?error=collection_unknown`;
      const refused = depositRefusal(collection, agent);
      return refused ? `${AGENT_APP}?error=${refused}` : collectionPath(collection.id);
    });
  }

  @Get('collections/:id')
  async collection(@Param('id') collectionId: string, @Query('error') error: unknown, @Query('confirm') confirm: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const signedIn = await this.agentSessions.current(request);
    if (!signedIn) return seeOther(reply, AGENT_APP);
    const collection = await this.reads.collection(collectionId);
    if (!collection) return this.views.notFound(request, reply, 'agent.collection_not_found');
    // A cashier sees only the collections to deposit at their cash point; a carrier only the status after a handover.
    if (signedIn.agent.role === 'cashier' && collection.deposit?.point !== signedIn.agent.cashPoint) return seeOther(reply, `${AGENT_APP}?error=not_your_point`);
    const [connection, point] = await Promise.all([
      this.directory.findConnection(collection.beneficiary_connection),
      signedIn.agent.role === 'carrier' && collection.deposit ? this.reads.cashPoint(collection.deposit.point) : undefined,
    ]);
    const depositPoint = point ? { name: point.name, address: point.address } : null;
    return this.views.collection(request, reply, signedIn.agent, signedIn.session.csrfToken, collection, connection?.name ?? collection.beneficiary_connection, { error, confirm, depositPoint });
  }

  @Post('collections/:id/validate-deposit')
  async validateDeposit(@Param('id') collectionId: string, @Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const back = collectionPath(collectionId);
    return this.agentSessions.post(body, request, reply, 'cashier', async (form, { agent }) => {
      const collection = await this.reads.collection(collectionId);
      if (!collection) return `${AGENT_APP}?error=collection_unknown`;
      const refused = depositRefusal(collection, agent);
      if (refused) return `${AGENT_APP}?error=${refused}`;
      const amountReceived = parseTypedAmount(form.get('amount') ?? '', collection.currency, this.views.language(request, reply), true);
      if (amountReceived === undefined) return `${back}?error=amount_format`;
      // A mistyped amount would go to back-office review: the cashier confirms an amount that differs from the expected one.
      if (amountReceived !== collection.amount && form.get('confirmed') !== String(amountReceived)) return `${back}?confirm=${amountReceived}`;
      return runCommand(back, () => this.bus.request('collections.validate-deposit', { integratorId: null, collectionId, amountReceived }, { timeoutMs: SETTLEMENT_REQUEST_TIMEOUT_MS }));
    });
  }

  /**
   * The carrier confirms a handover with the recipient's code: from their home (the collection id typed
   * or scanned) or from the collection's page (`from=collection`: refusals go back there). Wrong codes
   * lock that collection's handover after five. The carrier is recorded with the collection.
   */
  @Post('handover')
  async handover(@Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.agentSessions.post(body, request, reply, 'carrier', async (form, { agent }) => {
      const collection = await this.reads.collection((form.get('collection') ?? '').trim());
      if (!collection) return `${AGENT_APP}?error=collection_unknown`;
      const back = collectionPath(collection.id);
      const refusedTo = form.get('from') === 'collection' ? back : AGENT_APP;
      const attempts = `handover:${collection.id}`;
      if (!(await this.signIns.attempt(attempts))) return `${refusedTo}?error=handover_locked`;
      if (!(await this.handoverCodes.matches(collection.id, latinDigits(form.get('code') ?? '').slice(0, TYPED_CODE_LENGTH_MAX)))) {
        return `${refusedTo}?error=${(await this.signIns.failed(attempts)) ? 'handover_locked' : 'handover_code'}`;
      }
      await this.signIns.succeeded(attempts);
      const done = await runCommand(back, () => this.bus.request('collections.confirm-handover', { integratorId: null, collectionId: collection.id, carrier: agent.id }));
      if (done !== back) return `${refusedTo}?error=${new URL(done, 'http://x').searchParams.get('error') ?? 'failed'}`;
      // Refused as not awaiting pickup: done already (a double tap), unless no cash point can receive the deposit yet.
      return (await this.reads.collection(collection.id))?.status === 'awaiting_collection' ? `${refusedTo}?error=invalid_status` : back;
    });
  }

  /** The collection's QR code (its id), shown on the carrier's screen for the cashier to scan at the deposit. */
  @Get('collections/:id/qr.png')
  async qrCode(@Param('id') collectionId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const signedIn = await this.agentSessions.current(request);
    const collection = signedIn ? await this.reads.collection(collectionId) : undefined;
    // Not signed in, or no such collection: the contract's JSON 404, as the cash payment's QR code answers.
    if (!collection) throw notFound('collection', collectionId);
    const png = await QRCode.toBuffer(collection.id, { type: 'png', errorCorrectionLevel: 'M', margin: 4, scale: 6 });
    return reply.header('Content-Type', 'image/png').header('Cache-Control', 'no-store').header('X-Content-Type-Options', 'nosniff').send(png);
  }
}
