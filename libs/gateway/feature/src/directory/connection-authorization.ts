import { Injectable } from '@nestjs/common';
import { ServiceError } from '@pay/contracts';
import { CONNECTION_CACHE_MAX, type Currency } from '@pay/kernel';
import { DirectoryRepository, type Connection } from './directory.repository';

/** Whether a connection named in a request is the caller's. */
@Injectable()
export class ConnectionAuthorization {
  /** Connections never change once created: each is read from PostgreSQL once. */
  private readonly connections = new Map<string, Connection>();

  constructor(private readonly directory: DirectoryRepository) {}

  /** The named connection must exist and belong to the caller (else connection_not_authorized). */
  async authorized(integratorId: string, connectionId: string, param: string): Promise<Connection> {
    const connection = this.connections.get(connectionId) ?? (await this.directory.findConnection(connectionId));
    if (connection && !this.connections.has(connectionId)) {
      if (this.connections.size >= CONNECTION_CACHE_MAX) this.connections.clear();
      this.connections.set(connectionId, connection);
    }
    if (!connection || connection.integratorId !== integratorId) {
      throw new ServiceError('connection_not_authorized', `connection '${connectionId}' is not connected to your account`, param);
    }
    return connection;
  }
}

/** The connection's account holds this currency (else currency_mismatch). */
export const requireCurrency = (connection: Connection, currency: Currency): void => {
  if (connection.currency !== currency) {
    throw new ServiceError('currency_mismatch', `connection ${connection.id} holds ${connection.currency}, not ${currency}`, 'currency');
  }
};
