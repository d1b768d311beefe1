import { Controller, Get, Inject, Param, Query, UseGuards } from '@nestjs/common';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { BalanceResource, BalanceTransactionResource, listOf, type ListResource, notFound, ServiceError } from '@pay/contracts';
import { ApiKeyGuard, Integrator } from '../auth/api-key.guard';
import { RequiresScope } from '../auth/scopes';
import { ConnectionAuthorization } from '../directory/connection-authorization';
import { DirectoryRepository, type ApiKeyRecord } from '../directory/directory.repository';
import { CREATED_RANGE, LIST_QUERY, QueryParams, Returns } from '../openapi/describe';
import { parseListQuery } from './list-query';

/** An integrator reads the accounts of its own connections: balances and the movements behind them. */
@Controller('v1')
@UseGuards(ApiKeyGuard)
@RequiresScope('balances')
export class BalancesController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly directory: DirectoryRepository,
    private readonly connections: ConnectionAuthorization,
  ) {}

  @Returns(BalanceResource, 'Retrieve a connection’s balance', { operationId: 'balances.retrieve' })
  @Get('balances/:connection')
  async balance(@Integrator() { integratorId }: ApiKeyRecord, @Param('connection') connectionId: string): Promise<BalanceResource> {
    const connection = await this.connections.authorized(integratorId, connectionId, 'connection');
    return this.bus.request('ledger.get-balance', { owner: connection.id });
  }

  /** Newest first; `connection` is required, `source` (an object id) and the creation time filter. */
  @Returns(listOf(BalanceTransactionResource), 'List balance transactions', { description: 'The movements of one of your connections’ accounts, newest first: their amounts add up to its available balance.' })
  @QueryParams('connection!', 'source', ...CREATED_RANGE, ...LIST_QUERY)
  @Get('balance_transactions')
  async list(@Integrator() { integratorId }: ApiKeyRecord, @Query() query: unknown): Promise<ListResource<BalanceTransactionResource>> {
    const { filters, ...page } = parseListQuery(query, ['connection', 'source'] as const, { createdRange: true });
    if (filters.connection === undefined) throw new ServiceError('invalid_request', 'connection is required: the id of one of your connections', 'connection');
    const connection = await this.connections.authorized(integratorId, filters.connection, 'connection');
    return this.bus.request('ledger.balance-transactions.list', { owner: connection.id, ...page, ...(filters.source === undefined ? {} : { source: filters.source }) });
  }

  @Returns(BalanceTransactionResource, 'Retrieve a balance transaction')
  @Get('balance_transactions/:id')
  async retrieve(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') id: string): Promise<BalanceTransactionResource> {
    const transaction = await this.bus.request('ledger.balance-transactions.retrieve', { id });
    const connection = await this.directory.findConnection(transaction.connection);
    if (!connection || connection.integratorId !== integratorId) throw notFound('balance transaction', id);
    return transaction;
  }
}
