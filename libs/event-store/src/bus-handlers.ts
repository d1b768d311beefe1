import type { Handler, MessageBus } from '@pay/bus';
import type { IntegrationEvent, RequestTopic } from '@pay/contracts';
import { EVENTS_RECORD_BATCH_MAX } from '@pay/kernel';
import type { RecordIntegrationEvent } from './aggregate-repository';

/** The bus handlers a context serves, by topic. */
export type Handlers = { [T in RequestTopic]?: Handler<T> };

export const registerHandlers = (bus: MessageBus, handlers: Handlers): void => {
  for (const [topic, handler] of Object.entries(handlers)) bus.handle(topic as RequestTopic, handler as Handler<RequestTopic>);
};

/** Integration events go to the webhooks app over the bus. */
export const recordWith =
  (bus: MessageBus): RecordIntegrationEvent =>
  (event) =>
    bus.request('events.record', event);

/** A relay's integration events, in order: one `events.record-batch` request per EVENTS_RECORD_BATCH_MAX, one after another. */
export type RecordIntegrationEvents = (events: readonly IntegrationEvent[]) => Promise<void>;

export const recordBatchWith =
  (bus: MessageBus): RecordIntegrationEvents =>
  async (events) => {
    for (let start = 0; start < events.length; start += EVENTS_RECORD_BATCH_MAX) {
      await bus.request('events.record-batch', { events: events.slice(start, start + EVENTS_RECORD_BATCH_MAX) });
    }
  };
