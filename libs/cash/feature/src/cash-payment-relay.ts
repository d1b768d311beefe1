import type { MessageBus } from '@pay/bus';
import { forEachWithStateAfter, type EventStore, type RecordedEvent } from '@pay/event-store';
import { cashPaymentDecider, type CashPayment, type CashPaymentEvent } from '@pay/cash-domain';
import { toIntegrationEvent } from './cash-payment-events';

/**
 * The relay from the cash payment streams to the webhooks app (at least once): a catch-up subscription
 * whose checkpoint only moves once every event of the batch is recorded. Normally each event was
 * recorded already, before the request that caused it was answered; after a crash in between, the
 * relay records it. Recording is idempotent by the stable event id.
 */
export const relayCashPaymentEvents = (store: EventStore, bus: MessageBus, batch: RecordedEvent[]): Promise<void> =>
  forEachWithStateAfter<CashPaymentEvent, CashPayment>(
    store,
    cashPaymentDecider,
    batch,
    async (event, stateAfter, revision) => {
      const integrationEvent = toIntegrationEvent(event, stateAfter, revision);
      if (integrationEvent) await bus.request('events.record', integrationEvent);
    },
    (event) => event.type === 'CashPaymentCreated' || event.type === 'CashPaymentValidationStarted',
  );
