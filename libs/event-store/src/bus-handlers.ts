import type { Handler, MessageBus } from '@pay/bus';
import type { RequestTopic } from '@pay/contracts';
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
