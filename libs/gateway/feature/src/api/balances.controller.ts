import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { notFound, ServiceError, type BalanceResource, type BalanceTransactionResource, type ListResource } from '@pay/contracts';
import { GatewayCore } from '../gateway.core';
import { parseListQuery } from './list-query';
import { LIST_QUERY, QueryParams } from '../openapi/describe';

/** An integrator reads the accounts of its own connections: balances and the movements behind them. */
@Controller('v1')
export class BalancesController {
  constructor(private readonly gateway: GatewayCore) {}

  @Get('balances/:connection')
  async balance(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Param('connection') connectionId: string): Promise<BalanceResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    const connection = await this.gateway.authorizedConnection(integratorId, connectionId, 'connection');
    return this.gateway.bus.request('ledger.get-balance', { owner: connection.id });
  }

  /** Newest first; `connection` is required, `source` (an object id) and the creation time filter. */
  @QueryParams('connection!', 'source', 'created_gte', 'created_lt', ...LIST_QUERY)
  @Get('balance_transactions')
  async list(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Query() query: unknown): Promise<ListResource<BalanceTransactionResource>> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    const { filters, ...page } = parseListQuery(query, ['connection', 'source'] as const, { createdRange: true });
    if (filters.connection === undefined) throw new ServiceError('invalid_request', 'connection is required: the id of one of your connections', 'connection');
    const connection = await this.gateway.authorizedConnection(integratorId, filters.connection, 'connection');
    return this.gateway.bus.request('ledger.balance-transactions.list', { owner: connection.id, ...page, ...(filters.source === undefined ? {} : { source: filters.source }) });
  }

  @Get('balance_transactions/:id')
  async retrieve(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Param('id') id: string): Promise<BalanceTransactionResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    const transaction = await this.gateway.bus.request('ledger.balance-transactions.retrieve', { id });
    const connection = await this.gateway.directory.findConnection(transaction.connection);
    if (!connection || connection.integratorId !== integratorId) throw notFound('balance transaction', id);
    return transaction;
  }
}
