import type { MessageBus } from '@pay/bus';
import type { EventStore, RecordedEvent } from '@pay/event-store';
import { paymentDecider, type Payment, type PaymentEvent } from '@pay/payments-domain';
import { toIntegrationEvent } from './payment-events';

/**
 * The relay from the payment streams to the webhooks app (at least once): a catch-up subscription
 * whose checkpoint only moves once every event of the batch is recorded. Normally each event was
 * recorded already, before the request that caused it was answered; after a crash in between, the
 * relay records it. Recording is idempotent by the stable event id.
 */
export async function relayPaymentEvents(store: EventStore, bus: MessageBus, batch: RecordedEvent[]): Promise<void> {
  const histories = new Map<string, RecordedEvent[]>();
  for (const recorded of batch) {
    const event = recorded.data as PaymentEvent;
    if (event.type === 'PaymentCreated' || event.type === 'PaymentAuthorizationStarted') continue;
    let history = histories.get(recorded.streamId);
    if (!history) {
      history = await store.readStream(recorded.streamId);
      histories.set(recorded.streamId, history);
    }
    const stateAfter = history
      .filter((r) => r.revision <= recorded.revision)
      .reduce<Payment>((state, r) => paymentDecider.evolve(state, r.data as PaymentEvent), paymentDecider.initialState);
    const integrationEvent = toIntegrationEvent(event, stateAfter, recorded.revision);
    if (integrationEvent) await bus.request('events.record', integrationEvent);
  }
}
