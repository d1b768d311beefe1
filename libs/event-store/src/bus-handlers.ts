import { batchingRequest, type Handler, type MessageBus } from '@pay/bus';
import type { IntegrationEvent, RequestTopic } from '@pay/contracts';
import { EVENTS_RECORD_BATCH_MAX, EVENTS_RECORD_TIMEOUT_MS, EVENTS_RECORDED_REMEMBERED_MAX } from '@pay/kernel';
import type { RecordIntegrationEvent } from './aggregate-repository';

/** The bus handlers a context serves, by topic. */
export type Handlers = { [T in RequestTopic]?: Handler<T> };

export const registerHandlers = (bus: MessageBus, handlers: Handlers): void => {
  for (const [topic, handler] of Object.entries(handlers)) bus.handle(topic as RequestTopic, handler as Handler<RequestTopic>);
};

/**
 * The integration events this process has handed to the webhooks app itself, by event id: those whose
 * request is in flight, and the last EVENTS_RECORDED_REMEMBERED_MAX answered. Its relay leaves them out
 * of its batches (it would send each event a second time, one request per batch of a dozen
 * authorizations); one this process did not record (a crash in between, a refusal, another instance,
 * or forgotten) goes in the batch as before.
 */
class RecordedHere {
  private readonly inFlight = new Map<string, Promise<unknown>>();
  /** Insertion order is answer order: the oldest is forgotten first. */
  private readonly answered = new Set<string>();

  track(id: string, request: Promise<unknown>): void {
    this.inFlight.set(id, request);
    request.then(
      () => {
        this.inFlight.delete(id);
        this.answered.add(id);
        if (this.answered.size > EVENTS_RECORDED_REMEMBERED_MAX) this.answered.delete(this.answered.values().next().value!);
      },
      () => this.inFlight.delete(id),
    );
  }

  /** The events not recorded by this process; waits for those whose request is still in flight. */
  async unrecorded(events: readonly IntegrationEvent[]): Promise<IntegrationEvent[]> {
    const outcomes = await Promise.all(
      events.map(async (event) => {
        if (this.answered.has(event.id)) return true;
        const request = this.inFlight.get(event.id);
        return request ? request.then(() => true, () => false) : false;
      }),
    );
    return events.filter((_, index) => !outcomes[index]);
  }
}

const recordedHere = new WeakMap<MessageBus, RecordedHere>();
const recordedOn = (bus: MessageBus): RecordedHere => {
  let recorded = recordedHere.get(bus);
  if (!recorded) recordedHere.set(bus, (recorded = new RecordedHere()));
  return recorded;
};

/** Integration events go to the webhooks app over the bus. */
export const recordWith = (bus: MessageBus): RecordIntegrationEvent => {
  const recorded = recordedOn(bus);
  // Over Kafka the events of concurrent commands leave together, one request at a time (in the order made).
  const send = batchingRequest(
    bus,
    'events.record',
    { topic: 'events.record-batch', request: (events) => ({ events }), outcomes: (_reply, events) => events.map(() => ({ value: { recorded: true } })), max: EVENTS_RECORD_BATCH_MAX },
    { timeoutMs: EVENTS_RECORD_TIMEOUT_MS },
  );
  return (event) => {
    const request = send(event);
    recorded.track(event.id, request);
    return request;
  };
};

/**
 * A relay's integration events, in order, less those this process recorded itself (recordWith on the
 * same bus): one `events.record-batch` request per EVENTS_RECORD_BATCH_MAX, one after another.
 */
export type RecordIntegrationEvents = (events: readonly IntegrationEvent[]) => Promise<void>;

export const recordBatchWith = (bus: MessageBus): RecordIntegrationEvents => {
  const recorded = recordedOn(bus);
  return async (all) => {
    const events = await recorded.unrecorded(all);
    for (let start = 0; start < events.length; start += EVENTS_RECORD_BATCH_MAX) {
      await bus.request('events.record-batch', { events: events.slice(start, start + EVENTS_RECORD_BATCH_MAX) });
    }
  };
};
