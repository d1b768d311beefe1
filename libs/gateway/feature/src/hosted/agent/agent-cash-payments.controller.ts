import { Body, Controller, Get, Inject, Param, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { ServiceError } from '@pay/contracts';
import { parseTypedAmount } from '@pay/hosted-ui';
import { latinDigits, TYPED_REFERENCE_LENGTH_MAX } from '@pay/kernel';
import { DirectoryRepository } from '../../directory/directory.repository';
import { seeOther } from '../forms';
import { AgentReads, runCommand } from './agent-reads';
import { AgentSessions } from './agent-sessions';
import { AGENT_APP, AgentViews, cashPaymentPath } from './agent-views';
import { HostedErrorPages } from '../views/hosted-error-pages';

/**
 * A cashier finds a cash payment by its reference (typed, or scanned where the browser can: the form
 * works without script), validates the exact cash (cash.cash-payments.pay, the sandbox helper's
 * command) and reads the receipt number.
 */
@UseFilters(HostedErrorPages)
@Controller('hosted/agent')
export class AgentCashPaymentsController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly agentSessions: AgentSessions,
    private readonly directory: DirectoryRepository,
    private readonly reads: AgentReads,
    private readonly views: AgentViews,
  ) {}

  @Post('find-cash-payment')
  async findCashPayment(@Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.agentSessions.post(body, request, reply, 'cashier', async (form) => {
      try {
        const reference = latinDigits(form.get('reference') ?? '').slice(0, TYPED_REFERENCE_LENGTH_MAX);
        const payment = await this.bus.request('cash.cash-payments.find-by-reference', { reference });
        return cashPaymentPath(payment.id);
      } catch (error) {
        if (error instanceof ServiceError && error.code === 'invalid_request') return `${AGENT_APP}?error=reference_mistyped`;
        if (error instanceof ServiceError && error.code === 'resource_not_found') return `${AGENT_APP}?error=reference_unknown`;
        throw error;
      }
    });
  }

  @Get('cash_payments/:id')
  async cashPayment(@Param('id') cashPaymentId: string, @Query('error') error: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const signedIn = await this.agentSessions.current(request);
    if (!signedIn || signedIn.agent.role !== 'cashier') return seeOther(reply, AGENT_APP);
    const payment = await this.reads.cashPayment(cashPaymentId);
    if (!payment) return this.views.notFound(request, reply, 'agent.cash_payment_not_found');
    const merchant = (await this.directory.findConnection(payment.merchant_connection))?.name ?? payment.merchant_connection;
    return this.views.cashPayment(request, reply, signedIn.session.csrfToken, payment, merchant, error);
  }

  @Post('cash_payments/:id/pay')
  async pay(@Param('id') cashPaymentId: string, @Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const back = cashPaymentPath(cashPaymentId);
    return this.agentSessions.post(body, request, reply, 'cashier', async (form, { agent }) => {
      const payment = await this.reads.cashPayment(cashPaymentId);
      if (!payment) return `${AGENT_APP}?error=reference_unknown`;
      const amount = parseTypedAmount(form.get('amount') ?? '', payment.currency, this.views.language(request, reply));
      if (amount === undefined) return `${back}?error=amount_format`;
      return runCommand(back, () => this.bus.request('cash.cash-payments.pay', { integratorId: null, cashPaymentId, cashPointId: agent.cashPoint, amount }));
    });
  }
}
