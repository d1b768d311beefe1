import { ServiceError, type ErrorBody, type RequestTopic } from '@pay/contracts';
import { BUS_REQUEST_TIMEOUT_MS } from '@pay/kernel';
import { currentTraceContext } from '@pay/observability';
import { handleInContext, outgoingContext, requestTimedOut, timeRequest } from './bus-observability';
import type { BusReadiness, Handler, MessageBus, Reply, Request, RequestOptions } from './message-bus';

type AnyHandler = (message: unknown) => Promise<unknown>;

/**
 * The embedded default: handlers are called in the same process. Messages and replies go through a
 * JSON round trip, so what works here is exactly what can cross Kafka (no shared references, no Dates);
 * the caller's request and correlation ids are handed over with the message, as Kafka headers would,
 * and its trace context is the parent of the handler's `process <topic>` span.
 */
export class InProcessBus implements MessageBus {
  readonly remote = false;
  private readonly handlers = new Map<string, AnyHandler>();
  private closed = false;
  private inFlight = 0;
  private drained: (() => void) | undefined;

  handle<T extends RequestTopic>(topic: T, handler: Handler<T>): void {
    if (this.handlers.has(topic)) throw new Error(`a handler for ${topic} is already registered`);
    this.handlers.set(topic, handler as AnyHandler);
  }

  async request<T extends RequestTopic>(topic: T, message: Request<T>, options: RequestOptions = {}): Promise<Reply<T>> {
    if (this.closed) throw new ServiceError('service_unavailable', 'the service is shutting down');
    const handler = this.handlers.get(topic);
    if (!handler) throw new ServiceError('service_unavailable', `no service answers ${topic}`);
    const timeoutMs = options.timeoutMs ?? BUS_REQUEST_TIMEOUT_MS;
    this.inFlight += 1;
    let timer: NodeJS.Timeout | undefined;
    try {
      // The handler's span is the child of the caller's own: in one process a `send` span would only
      // repeat it (same start, same end), at the price of a span and a trace context written and parsed.
      const context = { ...outgoingContext(), parent: currentTraceContext() };
      const reply = handleInContext(topic, 'in_process', context, () => handler(roundTrip(message))).then(roundTrip, (error: unknown) => {
        throw error instanceof ServiceError ? ServiceError.fromBody(roundTrip<ErrorBody>(error.toBody())) : error;
      });
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(requestTimedOut(topic, timeoutMs)), timeoutMs);
      });
      return (await timeRequest(topic, Promise.race([reply, timeout]))) as Reply<T>;
    } finally {
      clearTimeout(timer);
      this.inFlight -= 1;
      if (this.inFlight === 0) this.drained?.();
    }
  }

  async start(): Promise<void> {
    /* nothing to connect */
  }

  /** Handlers are called in this process: nothing to be connected to. */
  isReady(): BusReadiness {
    return { ready: true };
  }

  /** Refuses new requests and waits for those in flight. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.drained = resolve));
  }
}

const roundTrip = <T>(value: T): T => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T));
