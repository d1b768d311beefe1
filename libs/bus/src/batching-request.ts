import { Logger } from '@nestjs/common';
import { ServiceError, type BatchOutcome, type RequestTopic } from '@pay/contracts';
import { coalescedCall, type Outcome } from './coalesced-call';
import { errorBodyOf } from './kafka-bus';
import type { MessageBus, Reply, Request, RequestOptions } from './message-bus';

const logger = new Logger('bus');

/** How the requests of `topic` that queued together cross as one request of a batch topic. */
export interface Batching<T extends RequestTopic, B extends RequestTopic> {
  topic: B;
  /** The batch request of two or more requests of `topic`, in order. */
  request(messages: Request<T>[]): Request<B>;
  /** Each request's outcome, in the same order. */
  outcomes(reply: Reply<B>, messages: Request<T>[]): Outcome<Reply<T>>[];
  /** Requests in one batch, at most (the serving side refuses more). */
  max: number;
  /** Requests of different lanes leave apart (a batch topic partitioned by a field: one lane per value). */
  laneOf?: (message: Request<T>) => string;
  /** How long a batch waits for half as many requests as the last (coalescedCall's gatherMs; default 0). */
  gatherMs?: number;
}

/** Each bus's batching requests, by topic and timeout: the callers of one process share their batches. */
const batching = new WeakMap<MessageBus, Map<string, (message: never) => Promise<unknown>>>();

/**
 * Requests of `topic` over `bus`. Over Kafka (bus.remote) they coalesce (coalescedCall): a lone one
 * leaves as it is, those made while one of its lane is in flight leave together as one request of the
 * batch topic, and each caller gets its own reply or error. In one process each is its own call.
 */
export function batchingRequest<T extends RequestTopic, B extends RequestTopic>(bus: MessageBus, topic: T, batch: Batching<T, B>, options: RequestOptions = {}): (message: Request<T>) => Promise<Reply<T>> {
  const one = (message: Request<T>) => bus.request(topic, message, options);
  if (!bus.remote) return one;
  let byTopic = batching.get(bus);
  if (!byTopic) batching.set(bus, (byTopic = new Map()));
  const name = `${topic}|${options.timeoutMs ?? ''}`;
  const known = byTopic.get(name) as ((message: Request<T>) => Promise<Reply<T>>) | undefined;
  if (known) return known;
  const call = coalescedCall<Request<T>, Reply<T>>({
    one,
    many: async (messages) => batch.outcomes(await bus.request(batch.topic, batch.request(messages), options), messages),
    batchMax: batch.max,
    ...(batch.laneOf ? { laneOf: batch.laneOf } : {}),
    ...(batch.gatherMs ? { gatherMs: batch.gatherMs } : {}),
  });
  byTopic.set(name, call);
  return call;
}

/**
 * The serving side of a batch topic: each request run by `handle` as a request of `topic` would be,
 * all at once (they share the group commits behind them); one refused or failed answers only itself.
 * `prepare`, when given, runs first on the whole batch (a read that serves every request of it).
 */
export async function settleEach<T extends RequestTopic>(
  topic: T,
  messages: readonly Request<T>[],
  max: number,
  handle: (message: Request<T>) => Promise<Reply<T>>,
  prepare?: (messages: readonly Request<T>[]) => Promise<void>,
): Promise<BatchOutcome<Reply<T>>[]> {
  if (!Array.isArray(messages) || messages.length === 0 || messages.length > max) throw new ServiceError('invalid_request', `a batch of ${topic} holds 1 to ${max} requests`);
  await prepare?.(messages);
  const settled = await Promise.allSettled(messages.map((message) => handle(message)));
  return settled.map((result) => {
    if (result.status === 'fulfilled') return { reply: result.value };
    if (!(result.reason instanceof ServiceError)) logger.error(`${topic} in a batch failed: ${result.reason instanceof Error ? (result.reason.stack ?? result.reason.message) : String(result.reason)}`);
    return { error: errorBodyOf(topic, result.reason) };
  });
}

/** A batch's outcomes as its callers get them: each reply, or its error as the ServiceError it was. */
export const toOutcomes = <Reply>(outcomes: readonly BatchOutcome<Reply>[]): Outcome<Reply>[] =>
  outcomes.map((outcome) => ('error' in outcome ? { error: ServiceError.fromBody(outcome.error) } : { value: outcome.reply }));
