import type { MessageBus } from '@pay/bus';
import { forEachWithStateAfter, type EventStore, type RecordedEvent } from '@pay/event-store';
import { supplierPaymentDecider, type SupplierPayment, type SupplierPaymentEvent } from '@pay/supplier-payments-domain';
import { toIntegrationEvent } from './supplier-payment-events';

/**
 * The relay from the supplier payment streams to the webhooks app (at least once): a catch-up subscription
 * whose checkpoint only moves once every event of the batch is recorded. Normally each event was
 * recorded already, before the request that caused it was answered; after a crash in between, the
 * relay records it. Recording is idempotent by the stable event id.
 */
export const relaySupplierPaymentEvents = (store: EventStore, bus: MessageBus, batch: RecordedEvent[]): Promise<void> =>
  forEachWithStateAfter<SupplierPaymentEvent, SupplierPayment>(
    store,
    supplierPaymentDecider,
    batch,
    async (event, stateAfter, revision) => {
      const integrationEvent = toIntegrationEvent(event, stateAfter, revision);
      if (integrationEvent) await bus.request('events.record', integrationEvent);
    },
    (event) => event.type === 'SupplierPaymentCreated' || event.type === 'SupplierPaymentApprovalStarted',
  );
