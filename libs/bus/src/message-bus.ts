import type { RequestTopic, RequestTopics } from '@pay/contracts';

export type Request<T extends RequestTopic> = RequestTopics[T]['request'];
export type Reply<T extends RequestTopic> = RequestTopics[T]['reply'];
export type Handler<T extends RequestTopic> = (message: Request<T>) => Promise<Reply<T>>;

export interface RequestOptions {
  /** Every request has a deadline; a service that does not answer in time is `service_unavailable`. */
  timeoutMs?: number;
}

/**
 * The bus port: request/reply between apps. Replies that are errors reject with a ServiceError
 * carrying the remote code, so a caller handles a remote rule like a local one.
 * Adapters: in-process (embedded default) and Kafka (distributed topology).
 */
export interface MessageBus {
  /**
   * Whether a request crosses the network (Kafka): each then costs its sender, its server and the
   * broker a produce, a fetch and their decoding, so callers making many small requests at once batch
   * them (coalescedCall). In one process a request is a function call: batching would only wait.
   */
  readonly remote: boolean;
  request<T extends RequestTopic>(topic: T, message: Request<T>, options?: RequestOptions): Promise<Reply<T>>;
  /** Registers the handler of a topic this process serves; before start(). */
  handle<T extends RequestTopic>(topic: T, handler: Handler<T>): void;
  /** Connects and starts serving the registered topics. */
  start(): Promise<void>;
  /** Stops taking requests, finishes those in flight, disconnects. */
  close(): Promise<void>;
  /**
   * Whether the bus can take and send requests now, from the state the adapter already holds (no
   * network round trip): /ready asks it on every probe.
   */
  isReady(): BusReadiness;
}

/** Ready, or why not (said in /ready's 503 message). */
export type BusReadiness = { ready: true } | { ready: false; reason: string };

export const MESSAGE_BUS = Symbol('MessageBus');
