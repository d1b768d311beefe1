import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { ClientKafka, KafkaContext, KafkaHeaders, KafkaRetriableException, ServerKafka, type KafkaOptions, type OutgoingResponse, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import { logLevel, Partitioners, type EachMessagePayload, type ICustomPartitioner, type KafkaMessage } from 'kafkajs';
import { isErrorCode, REPLY_TOPICS, replyTopicOf, REQUEST_MESSAGE_KEY, REQUEST_PARTITION_FIELD, REQUEST_TOPIC_OWNER, REQUEST_TOPICS, requestTopicOf, ServiceError, type AppName, type ErrorBody, type RequestTopic } from '@pay/contracts';
import {
  BUS_REQUEST_TIMEOUT_MS,
  KAFKA_CLOSE_TIMEOUT_MS,
  KAFKA_CONNECTION_TIMEOUT_MS,
  KAFKA_CONSUMER_MAX_WAIT_MS,
  KAFKA_CONSUMER_RETRIES,
  KAFKA_CONSUMER_RETRY_MS_MAX,
  KAFKA_HANDLER_HEARTBEAT_EVERY_MS,
  KAFKA_HEARTBEAT_INTERVAL_MS,
  KAFKA_OFFSET_COMMIT_DELAY_MS,
  KAFKA_PARTITIONS_CONSUMED_CONCURRENTLY,
  KAFKA_PRODUCE_BATCH_MESSAGES_MAX,
  KAFKA_REPLY_COMMIT_INTERVAL_MS,
  KAFKA_REQUEST_DEADLINE_GRACE_MS,
  KAFKA_RETRIES,
  KAFKA_RETRY_MS_MAX,
  KAFKA_RETRY_MS_MIN,
  KAFKA_SERVER_IN_FLIGHT_MAX,
  KAFKA_SERVER_UNCOMMITTED_MAX,
  KAFKA_SESSION_TIMEOUT_MS,
  isOutage,
} from '@pay/kernel';
import { runOutsideLogContext } from '@pay/observability';
import { contextFromHeaders, contextHeaders, handleInContext, requestTimedOut, timeRequest, traceRequest, type MessageContext } from './bus-observability';
import { coalescingSend, type BatchingProducer } from './coalescing-producer';
import { reason } from './error-reason';
import { GroupMembership } from './group-membership';
import { endKafkajsFetchWaitOnRebalance } from './kafkajs-fetch-wait';
import { fixKafkajsIdleTimer } from './kafkajs-idle-timer-fix';
import { kafkajsLogCreator } from './kafkajs-log';
import { KeyOrderedDispatcher } from './key-ordered-dispatcher';
import type { BusReadiness, Handler, MessageBus, Reply, Request, RequestOptions } from './message-bus';

/** The header naming a request's topic (RequestTopic): every request to an app travels on its one Kafka topic (requestTopicOf). */
export const REQUEST_TOPIC_HEADER = 'pay-topic';
/** The header carrying the value that picks a request's partition, when its topic declares one (REQUEST_PARTITION_FIELD). */
export const PARTITION_KEY_HEADER = 'pay-partition-key';
/** The caller's deadline, epoch milliseconds: a server does not run a request found long past it. */
export const REQUEST_DEADLINE_HEADER = 'pay-deadline';
/** What a caller is told when Kafka cannot take its request: the details are logged. */
const UNREACHABLE = 'the service cannot reach its message broker right now; retry shortly';
/** Connecting and producing: bounded retries, well inside a request's deadline (limits.ts). */
const RETRY = { initialRetryTime: KAFKA_RETRY_MS_MIN, maxRetryTime: KAFKA_RETRY_MS_MAX, retries: KAFKA_RETRIES };
/** Consuming: retries long enough to ride out a broker restart and keep the group member (limits.ts). */
const CONSUMER_RETRY = { initialRetryTime: KAFKA_RETRY_MS_MIN, maxRetryTime: KAFKA_CONSUMER_RETRY_MS_MAX, retries: KAFKA_CONSUMER_RETRIES };

export interface KafkaBusOptions {
  /** Bootstrap servers, host:port. */
  brokers: string[];
  /** The app of this process: consumer groups are `<app>-server` (serving) and `<app>-client` (replies). */
  app: AppName;
  /** Tells instances of one app apart in client ids (default random). */
  instanceId?: string;
  /**
   * Put before every topic and consumer group name (KAFKA_TOPIC_PREFIX, default none): several
   * topologies share one cluster without reading each other's messages (the distributed tests' suites).
   */
  topicPrefix?: string;
  /** Deadline of a request without its own (default 10 000 ms). */
  requestTimeoutMs?: number;
  /** How long a fetch waits when its partitions are empty (default KAFKA_CONSUMER_MAX_WAIT_MS). */
  consumerMaxWaitMs?: number;
  /** The topics this process may call (answered on its app's reply topic, replyTopicOf). Default: every topic another app serves. */
  callTopics?: readonly RequestTopic[];
  /** Request-topic partitions read at once (default 4); their messages are handled concurrently, one key's in order. */
  partitionsConsumedConcurrently?: number;
  /** Requests a server handles at once, at most (default KAFKA_SERVER_IN_FLIGHT_MAX). */
  serverInFlightMax?: number;
  /** How long close() waits for in-flight handlers and requests (default 10 000 ms). */
  closeTimeoutMs?: number;
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  /** kafkajs log level, through Nest's logger (default WARN). */
  logLevel?: logLevel;
}

export interface KafkaTopic {
  name: string;
  partitions: number;
}

/**
 * Every Kafka topic the bus needs for the request topics `topics`, with partition counts: the request
 * topic of each app serving them (requestTopicOf), and every app's reply topic (REPLY_TOPICS) with a
 * partition per caller instance (Nest's reply partition assigner gives each instance of a caller app
 * one partition). Create them ahead: the bus never creates topics.
 */
export function kafkaTopicsFor(topics: readonly RequestTopic[], replyPartitions: number, requestPartitions = replyPartitions): KafkaTopic[] {
  if (!Number.isInteger(replyPartitions) || replyPartitions < 1) throw new Error(`replyPartitions must be a positive integer, got ${replyPartitions}`);
  if (!Number.isInteger(requestPartitions) || requestPartitions < 1) throw new Error(`requestPartitions must be a positive integer, got ${requestPartitions}`);
  const requestTopics = [...new Set(topics.map((topic) => requestTopicOf(REQUEST_TOPIC_OWNER[topic])))];
  return [...requestTopics.map((name) => ({ name, partitions: requestPartitions })), ...REPLY_TOPICS.map((name) => ({ name, partitions: replyPartitions }))];
}

/** What crosses a reply topic: the value, or the error a handler answered with. */
type Envelope = { reply?: unknown } | { error: ErrorBody };
type WireHandler = (data: unknown, context: KafkaContext) => Promise<string>;

/**
 * The bus over Kafka, through Nest's Kafka transport: ClientKafka sends requests to the serving app's
 * topic (requestTopicOf; with correlation id, reply topic and reply partition headers, the request
 * topic in REQUEST_TOPIC_HEADER, the caller's deadline in REQUEST_DEADLINE_HEADER, our request-id and
 * correlation-id headers for the handler's log lines, and W3C traceparent/tracestate when tracing) and
 * reads its app's reply topic; ServerKafka
 * consumes its app's request topic, hands each request to the handler of its request topic and
 * answers on the reply partition asked for. Same semantics as InProcessBus:
 * JSON both ways, a deadline on every request, errors as ErrorBody.
 */
export class KafkaBus implements MessageBus {
  readonly remote = true;
  private readonly logger: Logger;
  private readonly handlers = new Map<RequestTopic, WireHandler>();
  private readonly callTopics: ReadonlySet<RequestTopic>;
  private readonly requestTimeoutMs: number;
  private readonly closeTimeoutMs: number;
  private readonly instanceId: string;
  private readonly client: ReplyClient;
  private clientReady: Promise<void> | undefined;
  private clientConnected = false;
  private server: RequestServer | undefined;
  /** Requests handled and not yet answered (from Nest's processing start hook to its end hook). */
  private readonly serving = new Set<KafkaContext>();
  private readonly requesting = new Set<Promise<unknown>>();
  private closed = false;
  private started = false;

  constructor(private readonly options: KafkaBusOptions) {
    if (options.brokers.length === 0) throw new Error('KafkaBus needs at least one broker');
    fixKafkajsIdleTimer();
    endKafkajsFetchWaitOnRebalance();
    this.logger = new Logger(`KafkaBus(${options.app})`);
    this.requestTimeoutMs = options.requestTimeoutMs ?? BUS_REQUEST_TIMEOUT_MS;
    this.closeTimeoutMs = options.closeTimeoutMs ?? KAFKA_CLOSE_TIMEOUT_MS;
    this.instanceId = options.instanceId ?? randomUUID().slice(0, 8);
    this.callTopics = new Set(options.callTopics ?? REQUEST_TOPICS.filter((topic) => REQUEST_TOPIC_OWNER[topic] !== options.app));
    this.client = new ReplyClient(this.transportOptions('-client'), this.kafkaName(replyTopicOf(options.app)));
    if (this.callTopics.size > 0) this.client.subscribeToResponseOf(this.client.replyTopic);
  }

  handle<T extends RequestTopic>(topic: T, handler: Handler<T>): void {
    if (this.started) throw new Error(`handle(${topic}) after start(): register every handler first`);
    if (this.handlers.has(topic)) throw new Error(`a handler for ${topic} is already registered`);
    if (REQUEST_TOPIC_OWNER[topic] !== this.options.app) throw new Error(`${topic} is served by ${REQUEST_TOPIC_OWNER[topic]}, not ${this.options.app}`);
    this.handlers.set(topic, this.wireHandler(topic, handler as (message: unknown) => Promise<unknown>));
  }

  async request<T extends RequestTopic>(topic: T, message: Request<T>, options: RequestOptions = {}): Promise<Reply<T>> {
    if (this.closed) throw new ServiceError('service_unavailable', 'the service is shutting down');
    if (!this.callTopics.has(topic)) throw new Error(`${this.options.app} does not call ${topic}: add it to callTopics`);
    if (typeof message !== 'object' || message === null || Array.isArray(message)) throw new Error(`a ${topic} message must be a JSON object`);
    const timeoutMs = options.timeoutMs ?? this.requestTimeoutMs;
    const reply = timeRequest(topic, traceRequest(topic, 'kafka', (context) => this.send(topic, message, timeoutMs, context)));
    this.requesting.add(reply);
    try {
      return (await reply) as Reply<T>;
    } finally {
      this.requesting.delete(reply);
    }
  }

  /**
   * Connects the server side (its app's request topic, when handlers are registered, in the group
   * `<app>-server`) and the client side (the reply topics, in `<app>-client`), so that the first
   * request does not pay for the group join (3 s on a fresh group).
   */
  async start(): Promise<void> {
    if (this.closed) throw new Error('KafkaBus is closed');
    if (this.started) return;
    this.started = true;
    await Promise.all([this.startServer(), this.callTopics.size > 0 ? this.connectClient() : undefined]);
  }

  private async startServer(): Promise<void> {
    if (this.handlers.size === 0) return;
    const server = new RequestServer(this.transportOptions('-server'), this.options.serverInFlightMax ?? KAFKA_SERVER_IN_FLIGHT_MAX);
    server.addHandler(this.kafkaName(requestTopicOf(this.options.app)), (data: unknown, context: KafkaContext) => this.route(data, context));
    server.setOnProcessingStartHook((_transport, context, done) => {
      this.serving.add(context as KafkaContext);
      return done();
    });
    server.setOnProcessingEndHook((_transport, context) => this.serving.delete(context as KafkaContext));
    this.server = server;
    await new Promise<void>((resolve, reject) => server.listen((error?: unknown) => (error ? reject(error) : resolve())));
    this.logger.log(`serving ${[...this.handlers.keys()].join(', ')}`);
  }

  /**
   * Ready while each consumer this process needs is in its group: the server's (`<app>-server`, when
   * it serves topics) and the client's (`<app>-client`, when it calls any). Read from kafkajs' own
   * consumer events, so a probe costs nothing; a broker outage shows once the consumer gives up its
   * retries (CONSUMER_RETRY, ~15 s) and until it joins its group again.
   */
  isReady(): BusReadiness {
    if (this.closed) return { ready: false, reason: 'the Kafka bus is closed' };
    const { app } = this.options;
    const down: string[] = [];
    if (this.handlers.size > 0 && !this.server?.membership.joined) down.push(`${app}-server (requests)`);
    if (this.callTopics.size > 0 && !this.client.membership.joined) down.push(`${app}-client (replies)`);
    return down.length === 0 ? { ready: true } : { ready: false, reason: `Kafka consumer group ${down.join(' and ')} not joined` };
  }

  /**
   * Stops consuming requests, waits (bounded) for the handlers in flight to answer and for this
   * process's own requests to settle, then disconnects.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const deadline = Date.now() + this.closeTimeoutMs;
    // No rejoin after this, and none still connecting when the consumers disconnect below.
    await withinDeadline(Promise.all([this.server?.membership, this.client.membership].map((membership) => membership?.close())), deadline);
    const server = this.server;
    // The two consumers leave their groups together: a disconnect waits for its fetch in flight on the
    // broker (up to a fetch wait), and one after the other the reply group heard of this member's leaving
    // only after the request consumer's wait.
    let serverClosed: Promise<void> = Promise.resolve();
    if (server) {
      // Its partitions stay this member's until their requests in flight are answered and committed:
      // the next owner starts after them, so one key's requests stay in order across the handover.
      server.stopAccepting();
      await until(() => (this.serving.size === 0 && server.inFlight === 0) || Date.now() >= deadline);
      if (server.inFlight > 0) this.logger.warn(`closing with ${server.inFlight} request(s) unanswered`);
      await withinDeadline(server.commit(), deadline);
      serverClosed = server.close().catch((error: unknown) => this.logger.warn(`server disconnect: ${reason(error)}`));
    }
    await withinDeadline(Promise.allSettled([...this.requesting, this.clientReady]), deadline);
    await Promise.all([serverClosed, this.client.close().catch((error: unknown) => this.logger.warn(`client disconnect: ${reason(error)}`))]);
  }

  /**
   * Publishes the request once the client is connected and settles with the first reply, or with a
   * timeout error at the deadline (counted from the call, the connection included), whichever comes
   * first; either way the reply's route is dropped. Straight through ClientKafka's publish rather than
   * its `send` observable: that cost each request a deferred connect, a merge, an observable and its
   * subscribers, plus the take and timeout operators, in the caller's busiest path.
   */
  private send(topic: RequestTopic, message: object, timeoutMs: number, context: MessageContext): Promise<unknown> {
    const headers: Record<string, string> = { ...contextHeaders(context), [REQUEST_TOPIC_HEADER]: topic, [REQUEST_DEADLINE_HEADER]: String(Date.now() + timeoutMs) };
    const partitionKey = partitionKeyOf(topic, message);
    if (partitionKey !== undefined) headers[PARTITION_KEY_HEADER] = partitionKey;
    const record = { key: messageKey(topic, message), value: JSON.stringify(message), headers };
    const kafkaTopic = this.kafkaName(requestTopicOf(REQUEST_TOPIC_OWNER[topic]));
    return new Promise<unknown>((resolve, reject) => {
      let settled = false;
      let dropRoute: (() => void) | undefined;
      const settle = (outcome: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        dropRoute?.();
        outcome();
      };
      const timer = setTimeout(() => settle(() => reject(this.timeoutError(topic, timeoutMs))), timeoutMs);
      this.connectClient().then(
        () => {
          if (settled) return;
          dropRoute = this.client.publishRequest(kafkaTopic, record, ({ err, response }) =>
            settle(() => {
              if (err) return reject(this.transportError(topic, err));
              try {
                resolve(openEnvelope(topic, response));
              } catch (error) {
                reject(error);
              }
            }),
          );
        },
        (error: unknown) => settle(() => reject(this.transportError(topic, error))),
      );
    });
  }

  /**
   * One connection for every request, made on first use; a failed attempt is forgotten so the next
   * request retries. Made outside the first request's log context: the consumer it starts outlives it.
   */
  private connectClient(): Promise<void> {
    this.clientReady ??= runOutsideLogContext(() => this.client.connect()).then(
      () => {
        this.clientConnected = true;
      },
      async (error: unknown) => {
        this.clientReady = undefined;
        await this.client.close().catch(() => undefined);
        const hint = isUnknownTopic(error) ? ` (are the reply topics created? see kafkaTopicsFor)` : '';
        // The broker's address and the client's reason are for the operator's log, not for an API caller.
        this.logger.warn(`cannot connect to Kafka at ${this.options.brokers.join(',')}: ${reason(error)}${hint}`);
        throw new ServiceError('service_unavailable', UNREACHABLE);
      },
    );
    return this.clientReady;
  }

  private timeoutError(topic: RequestTopic, timeoutMs: number): ServiceError {
    if (!this.clientConnected) this.logger.warn(`${topic} timed out: not connected to Kafka at ${this.options.brokers.join(',')}`);
    return requestTimedOut(topic, timeoutMs);
  }

  private transportError(topic: RequestTopic, error: unknown): ServiceError {
    if (error instanceof ServiceError) return error;
    // Nest's own error replies arrive as a string (e.g. no handler); kafkajs errors when sending as Errors
    // (naming the broker's address: the log's, not the caller's).
    this.logger.warn(`${topic}: the request could not be delivered: ${reason(error)}`);
    return new ServiceError('service_unavailable', `${topic}: ${UNREACHABLE}`);
  }

  /** A request from this app's topic, to the handler of the request topic its header names. */
  private route(data: unknown, context: KafkaContext): Promise<string> {
    const headers = context.getMessage().headers as Record<string, unknown> | undefined;
    const named = headers?.[REQUEST_TOPIC_HEADER];
    const deadline = Number(headers?.[REQUEST_DEADLINE_HEADER]);
    if (Date.now() > deadline + KAFKA_REQUEST_DEADLINE_GRACE_MS) {
      const what = typeof named === 'string' ? named.slice(0, 100) : 'a request';
      this.logger.warn(`${what} not run: found ${Math.round((Date.now() - deadline) / 1000)} s after its caller's deadline`);
      const error: ErrorBody = { code: 'service_unavailable', message: `${what} arrived after its caller's deadline` };
      return Promise.resolve(JSON.stringify({ error } satisfies Envelope));
    }
    const handler = typeof named === 'string' ? this.handlers.get(named as RequestTopic) : undefined;
    if (handler) return handler(data, context);
    const what = typeof named === 'string' ? named.slice(0, 100) : `a request without ${REQUEST_TOPIC_HEADER}`;
    const error: ErrorBody = { code: 'service_unavailable', message: `${this.options.app} does not serve ${what}` };
    return Promise.resolve(JSON.stringify({ error } satisfies Envelope));
  }

  private wireHandler(topic: RequestTopic, handler: (message: unknown) => Promise<unknown>): WireHandler {
    return async (data, context) => {
      try {
        if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new ServiceError('invalid_request', `a ${topic} message must be a JSON object`);
        const headers = context.getMessage().headers as Record<string, unknown> | undefined;
        const reply = await handleInContext(topic, 'kafka', contextFromHeaders(headers), () => handler(data), (error) =>
          this.logger.error(`${topic} handler failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
        );
        const envelope: Envelope = { reply };
        // The JSON text is what crosses; Nest passes strings through untouched (no key/value sniffing).
        return JSON.stringify(envelope);
      } catch (error) {
        return JSON.stringify({ error: errorBodyOf(topic, error) } satisfies Envelope);
      }
    };
  }

  /** A topic's or group's name on the cluster: under this topology's prefix, if any. */
  private kafkaName(name: string): string {
    return `${this.options.topicPrefix ?? ''}${name}`;
  }

  private transportOptions(postfixId: '-client' | '-server'): NonNullable<KafkaOptions['options']> {
    const { app, brokers } = this.options;
    const sessionTimeout = this.options.sessionTimeoutMs ?? KAFKA_SESSION_TIMEOUT_MS;
    return {
      postfixId,
      client: {
        clientId: `${app}-${this.instanceId}`,
        brokers,
        logLevel: this.options.logLevel ?? logLevel.WARN,
        // Nest's own logger contexts for kafkajs' lines, as its transports name them.
        logCreator: kafkajsLogCreator(new Logger(postfixId === '-server' ? 'ServerKafka' : 'ClientKafka')),
        retry: RETRY,
        connectionTimeout: KAFKA_CONNECTION_TIMEOUT_MS,
      },
      consumer: {
        groupId: this.kafkaName(app),
        sessionTimeout,
        rebalanceTimeout: sessionTimeout,
        heartbeatInterval: this.options.heartbeatIntervalMs ?? KAFKA_HEARTBEAT_INTERVAL_MS,
        maxWaitTimeInMs: this.options.consumerMaxWaitMs ?? KAFKA_CONSUMER_MAX_WAIT_MS,
        allowAutoTopicCreation: false,
        retry: CONSUMER_RETRY,
      },
      // kafkajs sends at once (no linger); the Java-compatible partitioner (named to silence its v2 warning) over the partition key.
      producer: { allowAutoTopicCreation: false, createPartitioner: partitionByHeaderOrKey, retry: RETRY },
      // Each side commits its offsets itself: the server up to the oldest request not yet answered
      // (RequestServer), the client its replies read, once a second at most (ReplyClient).
      run: { partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently ?? KAFKA_PARTITIONS_CONSUMED_CONCURRENTLY, autoCommit: false },
      // A request partition without a committed offset is read from its start, not its end: when a
      // partition moves to another instance before its first commit (a second instance joining a new
      // group), `latest` skipped every request sent to it during the rebalance. A reply partition is
      // read from its end: its instance wants only the replies to its own requests, sent after it joined.
      subscribe: { fromBeginning: postfixId === '-server' },
    };
  }
}

/**
 * Nest's ClientKafka, answered on one reply topic for every topic it calls (Nest's own is one reply
 * topic per request topic: a caller of every topic, the gateway, read 4 partitions of each, and
 * kafkajs walks every partition it holds on each fetch), with the membership of its reply consumer
 * watched from its creation (each connect makes a new one).
 */
class ReplyClient extends ClientKafka {
  readonly membership = new GroupMembership(new Logger('KafkaBus(replies)'));

  constructor(
    options: NonNullable<KafkaOptions['options']>,
    readonly replyTopic: string,
  ) {
    super(options);
  }

  /**
   * Publishes one request (a kafkajs message: key, value, headers) to `topic`, its reply handed to
   * `onReply` (Nest's packet: the reply, or `err` when it could not be sent). Returns what drops its
   * route, for a caller that stops waiting.
   */
  publishRequest(topic: string, message: object, onReply: (packet: WritePacket) => void): () => void {
    return this.publish({ pattern: topic, data: message }, onReply);
  }

  /** Nest names the reply topic from the request topic, when subscribing and on every send. */
  override getResponsePatternName(): string {
    return this.replyTopic;
  }

  protected override registerConsumerEventListeners(): void {
    super.registerConsumerEventListeners();
    if (this._consumer) this.membership.watch(this._consumer, () => this.bindTopics());
  }

  /** Called right after the producer is made, before its first send: requests leave coalesced. */
  protected override registerProducerEventListeners(): void {
    super.registerProducerEventListeners();
    if (this._producer) coalesce(this._producer);
  }

  /** Also closed when a connect fails (connectClient): a crash of that attempt's consumer is not rejoined. */
  override async close(): Promise<void> {
    clearTimeout(this.commitTimer);
    this.commitTimer = undefined;
    await this.membership.close();
    await super.close();
  }

  /** The next offset to commit of each reply partition read, by `topic|partition`. */
  private readonly toCommit = new Map<string, { topic: string; partition: number; offset: string }>();
  private commitTimer: NodeJS.Timeout | undefined;

  /**
   * Nest's handling of a reply, and its offset noted for the next commit (kafkajs' auto-commit, off
   * here, commits after every fetched batch: a request to the broker and a write to its offsets topic
   * per reply under load, for replies that are never read again).
   */
  override createResponseCallback(): ReturnType<ClientKafka['createResponseCallback']> {
    const handle = super.createResponseCallback();
    return async (payload: Parameters<typeof handle>[0]) => {
      await handle(payload);
      const { topic, partition, message } = payload;
      this.toCommit.set(`${topic}|${partition}`, { topic, partition, offset: (BigInt(message.offset) + 1n).toString() });
      this.commitTimer ??= setTimeout(() => void this.commitReplies(), KAFKA_REPLY_COMMIT_INTERVAL_MS);
    };
  }

  /** Best effort: a commit refused (a rebalance meanwhile) only means more old replies re-read and ignored. */
  private async commitReplies(): Promise<void> {
    this.commitTimer = undefined;
    const offsets = [...this.toCommit.values()];
    this.toCommit.clear();
    if (offsets.length === 0 || !this._consumer) return;
    await this._consumer.commitOffsets(offsets).catch((error: unknown) => this.logger.debug(`reply offsets not committed: ${reason(error)}`));
  }
}

/**
 * Nest's ServerKafka, serving requests concurrently. Nest hands kafkajs an eachMessage that runs the
 * handler to its end, and kafkajs fetches again only once every message of the last fetch is handled:
 * one slow request (payments.authorize waits on ledger.transfer over Kafka) held every partition of
 * the app, and each partition's requests ran one at a time. Here eachMessage only hands the message to
 * a KeyOrderedDispatcher: one key's requests (one entity's) run in offset order, the others at once,
 * up to inFlightMax; offsets are committed here, up to the oldest request not yet answered (its reply
 * sent), so a crash redelivers what was in flight rather than losing it. Handlers run beside the fetch
 * loop, which heartbeats: the session need not outlast a handler.
 *
 * Nest sends a reply from a process.nextTick callback that nobody awaits: a send that fails (the reply
 * partition's leader down past the retries) would be an unhandled rejection, which ends a Node process.
 * Here it is logged; the caller gets service_unavailable at its deadline.
 */
class RequestServer extends ServerKafka {
  /** Watched from before the consumer connects: its first group join happens inside listen(). */
  readonly membership = new GroupMembership(new Logger('KafkaBus(requests)'));
  private readonly dispatcher: KeyOrderedDispatcher;
  /** Requests expecting a reply, by `topic|partition|offset`: resolved once the reply is sent. */
  private readonly replySent = new Map<string, () => void>();
  private memberId: string | undefined;
  private commitTimer: NodeJS.Timeout | undefined;
  private committing: Promise<void> = Promise.resolve();

  constructor(options: NonNullable<KafkaOptions['options']>, inFlightMax: number) {
    super(options);
    this.dispatcher = new KeyOrderedDispatcher({
      inFlightMax,
      uncommittedMax: Math.max(inFlightMax, KAFKA_SERVER_UNCOMMITTED_MAX),
      onAnswered: () => this.scheduleCommit(),
      onError: (error, message) => this.logger.error(`${message.topic}[${message.partition}]@${message.offset} failed unanswered: ${reason(error)}`),
    });
  }

  /** Requests taken and not yet answered. */
  get inFlight(): number {
    return this.dispatcher.inFlight;
  }

  /**
   * The handler's route for a request's pattern, which is always a topic name here (addHandler). Nest
   * first tries JSON.parse on every pattern, for its object patterns: on a topic name that threw and
   * caught a SyntaxError for every request handled.
   */
  override getRouteFromPattern(pattern: string): string {
    return this.normalizePattern(pattern);
  }

  /** Takes no more requests (closing): they stay uncommitted, for the partition's next owner; fetching pauses. */
  stopAccepting(): void {
    this.dispatcher.stopAccepting();
    try {
      this.consumer?.pause([...this.getHandlers().keys()].map((topic) => ({ topic })));
    } catch (error) {
      this.logger.warn(`could not pause the request topics: ${reason(error)}`);
    }
  }

  /** Commits the offsets answered so far, one commit at a time; a failure is logged and covered by the next. */
  commit(): Promise<void> {
    clearTimeout(this.commitTimer);
    this.commitTimer = undefined;
    this.committing = this.committing.then(() => this.commitNow());
    return this.committing;
  }

  protected override registerConsumerEventListeners(): void {
    super.registerConsumerEventListeners();
    const consumer = this.consumer;
    if (!consumer) return;
    this.membership.watch(consumer, () => this.bindEvents(consumer));
    consumer.on(consumer.events.GROUP_JOIN, (event) => {
      const { memberId, memberAssignment } = (event as GroupJoinEvent).payload;
      this.dispatcher.assigned(memberAssignment, memberId === this.memberId);
      this.memberId = memberId;
    });
  }

  /** Called right after the producer is made, before its first send: replies leave coalesced. */
  protected override registerProducerEventListeners(): void {
    super.registerProducerEventListeners();
    if (this.producer) coalesce(this.producer);
  }

  override getMessageHandler(): (payload: EachMessagePayload) => Promise<void> {
    return (payload) => this.accept(payload);
  }

  override async sendMessage(message: OutgoingResponse, replyTopic: string, replyPartition: string | undefined | null, correlationId: string, context: KafkaContext) {
    try {
      return await super.sendMessage(message, replyTopic, replyPartition, correlationId, context);
    } catch (error) {
      this.logger.error(`could not reply on ${replyTopic}[${replyPartition}]: ${reason(error)}`);
      return [];
    } finally {
      this.replySent.get(messageId(context.getTopic(), context.getPartition(), context.getMessage().offset))?.();
    }
  }

  /**
   * Hands the message to the dispatcher and returns, so that kafkajs fetches on; past the bounds it
   * waits for room, heartbeating meanwhile (kafkajs heartbeats between messages, not during one).
   */
  private async accept(payload: EachMessagePayload): Promise<void> {
    if (!this.dispatcher.hasRoom()) {
      const beat = setInterval(() => void payload.heartbeat().catch(() => undefined), KAFKA_HANDLER_HEARTBEAT_EVERY_MS);
      try {
        await this.dispatcher.waitForRoom();
      } finally {
        clearInterval(beat);
      }
    }
    const { topic, partition, message } = payload;
    this.dispatcher.dispatch({ topic, partition, offset: message.offset, key: message.key?.toString() ?? null }, () => this.answer(payload));
  }

  /** Runs Nest's handling of one request, until its reply is sent (when it asks for one). */
  private async answer(payload: EachMessagePayload): Promise<void> {
    const id = messageId(payload.topic, payload.partition, payload.message.offset);
    const headers = payload.message.headers ?? {};
    const expectsReply = headers[KafkaHeaders.CORRELATION_ID] !== undefined && headers[KafkaHeaders.REPLY_TOPIC] !== undefined;
    const sent = expectsReply ? new Promise<void>((resolve) => this.replySent.set(id, resolve)) : undefined;
    try {
      await this.handleRequest(payload);
      await sent;
    } finally {
      this.replySent.delete(id);
    }
  }

  /**
   * Nest's handleMessage for a request that expects a reply from a handler: the handler's promise
   * awaited and its outcome published as one reply, as Nest's would be (the value, or the error; a
   * KafkaRetriableException thrown back to kafkajs), without the observable, replay subject and
   * subscribers Nest builds around every handler for those that stream. Anything else (an event, a
   * pattern without a handler) is Nest's own.
   */
  private async handleRequest(payload: EachMessagePayload): Promise<void> {
    const { topic, partition } = payload;
    const rawMessage = this.parser!.parse<KafkaMessage & { headers: Record<string, unknown> }>(Object.assign(payload.message, { topic, partition }));
    const { [KafkaHeaders.CORRELATION_ID]: correlationId, [KafkaHeaders.REPLY_TOPIC]: replyTopic, [KafkaHeaders.REPLY_PARTITION]: replyPartition } = rawMessage.headers;
    const packet = (await this.deserializer.deserialize(rawMessage, { channel: topic })) as ReadPacket;
    const handler = this.getHandlerByPattern(packet.pattern as string);
    if (!handler || handler.isEventHandler || !correlationId || !replyTopic) return super.handleMessage(payload);
    const context = new KafkaContext([rawMessage, partition, topic, this.consumer!, payload.heartbeat, this.producer!]);
    const publish = this.getPublisher(replyTopic as string, replyPartition as string, correlationId as string, context);
    return this.onProcessingStartHook(this.transportId, context, async () => {
      let outcome: Omit<OutgoingResponse, 'id'>;
      try {
        outcome = { response: await handler(packet.data, context), isDisposed: true };
      } catch (error) {
        if (error instanceof KafkaRetriableException) throw error;
        outcome = { err: error, isDisposed: true };
      }
      await publish(outcome);
    });
  }

  private scheduleCommit(): void {
    this.commitTimer ??= setTimeout(() => void this.commit(), KAFKA_OFFSET_COMMIT_DELAY_MS);
  }

  private async commitNow(): Promise<void> {
    const consumer = this.consumer;
    const offsets = this.dispatcher.offsetsToCommit();
    if (!consumer || offsets.length === 0) return;
    try {
      await consumer.commitOffsets(offsets);
    } catch (error) {
      this.dispatcher.commitFailed(offsets);
      this.logger.warn(`could not commit offsets (the next commit covers them): ${reason(error)}`);
    }
  }
}

type GroupJoinEvent = { payload: { memberId: string; memberAssignment: Record<string, number[]> } };

const messageId = (topic: string, partition: number, offset: string) => `${topic}|${partition}|${offset}`;

/** Replaces a producer's send by the coalescing one (Nest calls `send` for every request and reply). */
function coalesce(producer: BatchingProducer): void {
  producer.send = coalescingSend(producer, KAFKA_PRODUCE_BATCH_MESSAGES_MAX);
}

const isUnknownTopic = (error: unknown): boolean => /does not host this topic|unknown topic/i.test(reason(error));

/**
 * What a caller is answered when a handler throws: a ServiceError's own body; a database outage is
 * `service_unavailable` (retry shortly); anything else `internal_error`, its details left in the log.
 */
export function errorBodyOf(topic: RequestTopic, error: unknown): ErrorBody {
  if (error instanceof ServiceError) return error.toBody();
  if (isOutage(error)) return { code: 'service_unavailable', message: `${topic}: the database cannot be reached right now; retry shortly` };
  return { code: 'internal_error', message: `${topic} failed unexpectedly` };
}

function openEnvelope(topic: RequestTopic, envelope: unknown): unknown {
  if (typeof envelope === 'object' && envelope !== null) {
    if ('error' in envelope) {
      const body = envelope.error as Partial<ErrorBody> | null;
      if (body && isErrorCode(body.code) && typeof body.message === 'string') {
        throw new ServiceError(body.code, body.message, typeof body.param === 'string' ? body.param : undefined);
      }
    } else {
      return (envelope as { reply?: unknown }).reply;
    }
  }
  throw new ServiceError('internal_error', `${topic} answered with a malformed reply`);
}

/** A message's non-empty string value of `field`, if it has one. */
const stringField = (message: object, field: string | null | undefined): string | undefined => {
  const value = field ? (message as Record<string, unknown>)[field] : undefined;
  return typeof value === 'string' && value.length > 0 ? value : undefined;
};

/**
 * The value of the field the topic declares as its message key (libs/contracts, REQUEST_MESSAGE_KEY), so
 * that requests about one object stay in order on one partition; a topic about no entity, or a message
 * without its key field, gets a random key (spread over the partitions).
 */
export function messageKey(topic: RequestTopic, message: object): string {
  return stringField(message, REQUEST_MESSAGE_KEY[topic]) ?? randomUUID();
}

/** The value of the field the topic declares as its partition's (REQUEST_PARTITION_FIELD), if any. */
export const partitionKeyOf = (topic: RequestTopic, message: object): string | undefined => stringField(message, REQUEST_PARTITION_FIELD[topic]);

/** kafkajs' Java-compatible partitioner, hashing the partition key header when there is one, else the message key. */
export const partitionByHeaderOrKey: ICustomPartitioner = () => {
  const byKey = Partitioners.DefaultPartitioner();
  return (args) => {
    const routed = args.message.headers?.[PARTITION_KEY_HEADER];
    return byKey(routed === undefined ? args : { ...args, message: { ...args.message, key: routed as string | Buffer } });
  };
};

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, pollMs = 10): Promise<void> {
  while (!condition()) await sleep(pollMs);
}

/** Waits for `work` until the deadline at most; never throws (close is best effort past its bound). */
async function withinDeadline(work: Promise<unknown>, deadline: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work.catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()))))]);
  clearTimeout(timer);
}
