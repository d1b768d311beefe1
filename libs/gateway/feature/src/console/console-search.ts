import { Inject, Injectable } from '@nestjs/common';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import type { ReferenceMatch } from '@pay/contracts';
import { CONSOLE_LIST_MAX, type Currency } from '@pay/kernel';
import type { MessageKey } from '@pay/hosted-ui';
import { objectPath } from './console-paths';
import type { SearchResult } from './console-views';

const FIELD_KEYS: Readonly<Record<ReferenceMatch<unknown>['field'], MessageKey>> = {
  order_reference: 'console.ref.order',
  invoice_reference: 'console.ref.invoice',
  payment_reference: 'console.ref.payment_reference',
};

interface Found {
  id: string;
  status: string;
  amount: number;
  currency: Currency;
  created_at: string;
}

/** The search's reads, over the bus (never another app's database): the same in both topologies. */
@Injectable()
export class ConsoleSearch {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  /** Payments, cash payments and supplier payments whose order, invoice or payment reference is `reference`, across integrators, newest first. */
  async byReference(reference: string): Promise<{ results: SearchResult[]; truncated: boolean }> {
    const ask = { reference, limit: CONSOLE_LIST_MAX + 1 };
    const [payments, cash, supplier] = await Promise.all([
      this.bus.request('payments.search-references', ask),
      this.bus.request('cash.search-references', ask),
      this.bus.request('supplier-payments.search-references', ask),
    ]);
    const rows = (kind: MessageKey, object: string, items: ReferenceMatch<Found>[]): SearchResult[] =>
      items.map(({ integratorId, field, resource }) => ({
        href: objectPath(resource.id),
        id: resource.id,
        kind,
        object,
        reference: field === 'payment_reference' ? ((resource as unknown as { payment_reference: string }).payment_reference ?? reference) : reference,
        field: FIELD_KEYS[field],
        integrator: integratorId,
        status: resource.status,
        amount: resource.amount,
        currency: resource.currency,
        createdAt: resource.created_at,
      }));
    const all = [
      ...rows('console.kind.payment', 'payment', payments.items),
      ...rows('console.kind.cash_payment', 'cash_payment', cash.items),
      ...rows('console.kind.supplier_payment', 'supplier_payment', supplier.items),
    ].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    return { results: all.slice(0, CONSOLE_LIST_MAX), truncated: all.length > CONSOLE_LIST_MAX };
  }
}
