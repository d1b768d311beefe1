import type { MessageBus } from '@pay/bus';
import { cashPaymentDecider, type CashPayment, type CashPaymentEvent } from '@pay/cash-domain';
import type { EventStore, RecordedEvent } from '@pay/event-store';
import { toIntegrationEvent } from './cash-payment-events';

/**
 * The relay from the cash payment streams to the webhooks app (at least once): a catch-up
 * subscription whose checkpoint only moves once every event of the batch is recorded. Normally each
 * event was recorded already, before the request that caused it was answered; after a crash in
 * between, the relay records it. Recording is idempotent by the stable event id.
 */
export async function relayCashPaymentEvents(store: EventStore, bus: MessageBus, batch: RecordedEvent[]): Promise<void> {
  const histories = new Map<string, RecordedEvent[]>();
  for (const recorded of batch) {
    const event = recorded.data as CashPaymentEvent;
    if (event.type === 'CashPaymentCreated' || event.type === 'CashPaymentValidationStarted') continue;
    let history = histories.get(recorded.streamId);
    if (!history) {
      history = await store.readStream(recorded.streamId);
      histories.set(recorded.streamId, history);
    }
    const stateAfter = history
      .filter((r) => r.revision <= recorded.revision)
      .reduce<CashPayment>((state, r) => cashPaymentDecider.evolve(state, r.data as CashPaymentEvent), cashPaymentDecider.initialState);
    const integrationEvent = toIntegrationEvent(event, stateAfter, recorded.revision);
    if (integrationEvent) await bus.request('events.record', integrationEvent);
  }
}
