import { coalescedCall, type Handler, type MessageBus } from '@pay/bus';
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

/**
 * What a process sends the webhooks app, per bus: over Kafka the events of concurrent commands leave
 * together (coalescedCall, one `events.record-batch` while another request is in flight), one
 * request at a time, in the order they were made; in one process each is its own call.
 */
interface Recording {
  recorded: RecordedHere;
  send(event: IntegrationEvent): Promise<unknown>;
}

const recordings = new WeakMap<MessageBus, Recording>();
const recordingOn = (bus: MessageBus): Recording => {
  let recording = recordings.get(bus);
  if (!recording) {
    const timeout = { timeoutMs: EVENTS_RECORD_TIMEOUT_MS };
    const one = (event: IntegrationEvent) => bus.request('events.record', event, timeout);
    const send = bus.remote
      ? coalescedCall<IntegrationEvent, unknown>({
          one,
          many: async (events) => {
            await bus.request('events.record-batch', { events }, timeout);
            return events.map(() => ({ value: undefined }));
          },
          batchMax: EVENTS_RECORD_BATCH_MAX,
        })
      : one;
    recordings.set(bus, (recording = { recorded: new RecordedHere(), send }));
  }
  return recording;
};

/** Integration events go to the webhooks app over the bus. */
export const recordWith = (bus: MessageBus): RecordIntegrationEvent => {
  const { recorded, send } = recordingOn(bus);
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
  const { recorded } = recordingOn(bus);
  return async (all) => {
    const events = await recorded.unrecorded(all);
    for (let start = 0; start < events.length; start += EVENTS_RECORD_BATCH_MAX) {
      await bus.request('events.record-batch', { events: events.slice(start, start + EVENTS_RECORD_BATCH_MAX) });
    }
  };
};
