import type { MessageBus } from '@pay/bus';
import { forEachWithStateAfter, type EventStore, type RecordedEvent } from '@pay/event-store';
import { paymentDecider, type Payment, type PaymentEvent } from '@pay/payments-domain';
import { toIntegrationEvent } from './payment-events';

/**
 * The relay from the payment streams to the webhooks app (at least once): a catch-up subscription
 * whose checkpoint only moves once every event of the batch is recorded. Normally each event was
 * recorded already, before the request that caused it was answered; after a crash in between, the
 * relay records it. Recording is idempotent by the stable event id.
 */
export const relayPaymentEvents = (store: EventStore, bus: MessageBus, batch: RecordedEvent[]): Promise<void> =>
  forEachWithStateAfter<PaymentEvent, Payment>(
    store,
    paymentDecider,
    batch,
    async (event, stateAfter, revision) => {
      const integrationEvent = toIntegrationEvent(event, stateAfter, revision);
      if (integrationEvent) await bus.request('events.record', integrationEvent);
    },
    (event) => event.type === 'PaymentCreated' || event.type === 'PaymentAuthorizationStarted',
  );
