import { Inject, Injectable } from '@nestjs/common';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { notFound, type EndpointDeliveryResource, type EventResource, type JournalEntryResource } from '@pay/contracts';
import type { MessageKey } from '@pay/hosted-ui';
import { CONSOLE_LIST_MAX, CURRENCIES, type Clock, type Currency } from '@pay/kernel';
import { CLOCK } from '@pay/platform';
import { ApiKeysRepository } from '../directory/api-keys.repository';
import { AuditLog } from '../directory/audit-log';
import { DirectoryRepository } from '../directory/directory.repository';
import { auditedAction } from './console-audit';
import { kindOfId, type SearchableKind } from './console-paths';

/** What the console shows of one object: the object itself, its integrator, and everything that happened to it. */
export interface ConsoleObject {
  id: string;
  kind: SearchableKind;
  kindKey: MessageKey;
  status: string | null;
  currency: Currency | null;
  /** The integrator it belongs to (null: the platform's own, such as a finance key). */
  integratorId: string | null;
  /** The resource as the API answers it (its fields listed on the page), and names of the connections it names. */
  resource: Record<string, unknown>;
  names: Record<string, string>;
  /** Its integration events, oldest first (the status timeline), each with its webhook deliveries. */
  events: { event: EventResource; deliveries: EndpointDeliveryResource[] }[];
  entries: JournalEntryResource[];
  audit: { id: string; action: string; actor: string; at: string; requestId: string | null }[];
}

export const KIND_KEYS: Readonly<Record<SearchableKind, MessageKey>> = {
  payment: 'console.kind.payment',
  cashPayment: 'console.kind.cash_payment',
  supplierPayment: 'console.kind.supplier_payment',
  collection: 'console.kind.collection',
  refund: 'console.kind.refund',
  payout: 'console.kind.payout',
  event: 'console.kind.event',
  balanceTransaction: 'console.kind.balance_transaction',
  apiKey: 'console.kind.api_key',
  connection: 'console.kind.connection',
  customer: 'console.kind.customer',
};

/** The kinds whose integration events (and their webhook deliveries) name them as their object. */
const WITH_EVENTS: ReadonlySet<SearchableKind> = new Set(['payment', 'cashPayment', 'supplierPayment', 'collection', 'refund', 'payout']);

/**
 * Reads an object found by its id alone, across integrators, through the same bus requests and
 * gateway stores as the admin and integrator APIs (never another app's database): the object, then its
 * events, their deliveries, its ledger entries and its audit events, at once.
 */
@Injectable()
export class ConsoleObjects {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly directory: DirectoryRepository,
    private readonly apiKeys: ApiKeysRepository,
    private readonly auditLog: AuditLog,
  ) {}

  async load(id: string): Promise<ConsoleObject> {
    const kind = kindOfId(id);
    if (!kind) throw notFound('object', id);
    const found = await this.resource(kind, id);
    const resource = found.resource as Record<string, unknown>;
    const names = await this.connectionNames(resource);
    const integratorId = found.integratorId !== undefined ? found.integratorId : await this.integratorOf(resource);
    const reference = kind === 'balanceTransaction' ? String(resource['source']) : id;
    const [events, entries, audit] = await Promise.all([
      kind === 'event' ? [found.resource as EventResource] : integratorId && WITH_EVENTS.has(kind) ? this.eventsOf(integratorId, id) : [],
      kind === 'event' || kind === 'apiKey' || kind === 'connection' || kind === 'customer' ? [] : this.bus.request('ledger.entries', { reference }).then((list) => list.data),
      this.auditLog.list({ target: id, limit: CONSOLE_LIST_MAX }).then((list) => list.data),
    ]);
    const withDeliveries = await Promise.all(
      events.map(async (event) => ({ event, deliveries: integratorId ? (await this.bus.request('webhooks.events.deliveries', { integratorId, id: event.id, limit: CONSOLE_LIST_MAX })).data : [] })),
    );
    const currency = typeof resource['currency'] === 'string' && (CURRENCIES as readonly string[]).includes(resource['currency']) ? (resource['currency'] as Currency) : null;
    return {
      id,
      kind,
      kindKey: KIND_KEYS[kind],
      status: typeof resource['status'] === 'string' ? resource['status'] : null,
      currency,
      integratorId,
      resource,
      names,
      events: withDeliveries,
      entries: entries.slice(0, CONSOLE_LIST_MAX),
      audit: audit.map((a) => ({ id: a.id, action: a.action, actor: a.actor.id ? `${a.actor.type} ${a.actor.id}` : a.actor.type, at: a.created_at, requestId: a.request_id })),
    };
  }

  /** Sends an event's webhooks again to its integrator's matching endpoints (the integrator API's redeliver); audited. */
  async redeliver(objectId: string, eventId: string, requestId: string): Promise<void> {
    const object = await this.load(objectId);
    const integratorId = object.integratorId;
    if (!integratorId || !object.events.some((e) => e.event.id === eventId)) throw notFound('event', eventId);
    await auditedAction(this.auditLog, this.clock, { action: 'event.redelivered', target: { object: 'event', id: eventId }, integrator: integratorId, requestId }, () =>
      this.bus.request('webhooks.events.redeliver', { integratorId, id: eventId }),
    );
  }

  /** The object; `integratorId` when the read itself tells it. */
  private async resource(kind: SearchableKind, id: string): Promise<{ resource: object; integratorId?: string | null }> {
    switch (kind) {
      case 'payment':
        return { resource: await this.bus.request('payments.retrieve', { integratorId: null, paymentId: id }) };
      case 'cashPayment':
        return { resource: await this.bus.request('cash.cash-payments.retrieve', { integratorId: null, cashPaymentId: id }) };
      case 'supplierPayment':
        return { resource: await this.bus.request('supplier-payments.retrieve', { integratorId: null, supplierPaymentId: id }) };
      case 'collection':
        return { resource: await this.bus.request('collections.retrieve', { integratorId: null, collectionId: id }) };
      case 'refund': {
        const { integratorId } = await this.bus.request('payments.locate', { id });
        return { resource: await this.bus.request('payments.refunds.retrieve', { integratorId, id }), integratorId };
      }
      case 'payout': {
        const { integratorId } = await this.bus.request('payments.locate', { id });
        return { resource: await this.bus.request('payments.payouts.retrieve', { integratorId, payoutId: id }), integratorId };
      }
      case 'event': {
        const { integratorId } = await this.bus.request('webhooks.events.locate', { id });
        return { resource: await this.bus.request('webhooks.events.retrieve', { integratorId, id }), integratorId };
      }
      case 'balanceTransaction':
        return { resource: await this.bus.request('ledger.balance-transactions.retrieve', { id }) };
      case 'apiKey': {
        const key = await this.apiKeys.findAny(id, this.clock.now());
        if (!key) throw notFound('API key', id);
        const { integrator, ...resource } = key;
        return { resource: { ...resource, integrator }, integratorId: integrator };
      }
      case 'connection': {
        const connection = await this.directory.findConnection(id);
        if (!connection) throw notFound('connection', id);
        return {
          resource: { id, object: 'connection', integrator: connection.integratorId, kind: connection.kind, name: connection.name, currency: connection.currency, created_at: connection.createdAt },
          integratorId: connection.integratorId,
        };
      }
      case 'customer': {
        const [customer, name] = await Promise.all([this.directory.findCustomer(id), this.directory.findCustomerName(id)]);
        if (!customer) throw notFound('customer', id);
        return { resource: { id, object: 'customer', name: name ?? null, currency: customer.currency }, integratorId: null };
      }
    }
  }

  /** The object's integration events, oldest first (the list answers newest first). */
  private async eventsOf(integratorId: string, objectId: string): Promise<EventResource[]> {
    const page = await this.bus.request('webhooks.events.list', { integratorId, limit: CONSOLE_LIST_MAX, filters: { object_id: objectId } });
    return [...page.data].reverse();
  }

  /** The names of the connections an object names (its merchant, its business…), shown beside their ids. */
  private async connectionNames(resource: Record<string, unknown>): Promise<Record<string, string>> {
    const ids = [...new Set(Object.values(resource).filter((v): v is string => typeof v === 'string' && /^conn_[0-9A-Za-z]+$/.test(v)))];
    const found = await Promise.all(ids.map(async (id) => [id, (await this.directory.findConnection(id))?.name] as const));
    return Object.fromEntries(found.filter((entry): entry is readonly [string, string] => entry[1] !== undefined));
  }

  /** The integrator of an object read without one: that of the first connection it names. */
  private async integratorOf(resource: Record<string, unknown>): Promise<string | null> {
    for (const value of Object.values(resource)) {
      if (typeof value === 'string' && /^conn_[0-9A-Za-z]+$/.test(value)) {
        const connection = await this.directory.findConnection(value);
        if (connection) return connection.integratorId;
      }
    }
    return null;
  }
}
