import { Logger, type OnApplicationShutdown, type OnModuleInit, type Provider } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import type { SubscribingApp } from '@pay/contracts';
import type { OffsetClock } from '@pay/kernel';
import { CLOCK, EVENT_STORE, PG_POOL } from '@pay/platform';
import type { AggregateType, OwnedState } from './aggregate-repository';
import { recordBatchWith, registerHandlers, type Handlers } from './bus-handlers';
import { CatchUpSubscription } from './catch-up-subscription';
import type { EventStore, RecordedEvent } from './event-store';
import { integrationRelay } from './integration-relay';
import { OperatorHandlers } from './operator-handlers';
import { SingleRunner } from './single-runner';
import { Sweeper, type SweeperOptions, type SweepTasks } from './sweeper';

/** What the host hands every context. */
export interface ContextInfrastructure {
  store: EventStore;
  bus: MessageBus;
  clock: OffsetClock;
  pool: Pool;
}

/**
 * A catch-up subscription of the context. The id names its checkpoint: renaming it replays every
 * event from the start. A projection writes its read model in the batch's transaction; a relay
 * records an aggregate's status changes with the webhooks app.
 */
export type SubscriptionDeclaration =
  | { kind: 'projection'; id: string; typePrefixes: readonly string[]; handle(events: RecordedEvent[], tx: PoolClient): Promise<void> }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any aggregate: the relay only passes its own events to its own decider
  | { kind: 'relay'; id: string; aggregate: AggregateType<any, any, any> };

/** The deadlines and the two-step processes of a context, swept as the projection `caughtUpOn` sees them. */
export interface SweeperDeclaration {
  tasks: SweepTasks;
  caughtUpOn: string;
  options: SweeperOptions;
}

/**
 * Everything a context runs besides its request handlers' logic. Its deadline topic is
 * `<app>.apply-deadlines` (when it has a sweeper); its operator topics `<app>.operations.*`.
 */
export interface ContextDeclaration {
  app: SubscribingApp;
  /** Started in this order (projections before the relays that follow them), stopped in reverse. */
  subscriptions: readonly SubscriptionDeclaration[];
  sweeper?: SweeperDeclaration;
  /** `caughtUp(id)`: read your writes, e.g. a list answers once its projection has caught up. */
  handlers(caughtUp: (subscriptionId: string) => Promise<void>): Handlers;
}

/**
 * Runs a declared context for the life of its Nest module: at start the handlers are registered
 * (the context's, its apply-deadlines and its operator topics), then the subscriptions start in
 * order, then the sweeper finishes what a crash left half done, before the host serves anything.
 *
 * With several instances of the app, the subscriptions and the sweeper run in one instance at a time:
 * the one holding the context's advisory lock (SingleRunner, one connection per instance rather than
 * one per subscription out of a pool of DB_POOL_MAX). The others serve requests all the same: their
 * `caughtUp()` waits for the holder's checkpoints (`whenStopped: 'follow'`), and their apply-deadlines
 * applies deadlines itself (a command at the expected revision: never twice). When the holder stops
 * or loses its connection, another takes over within SINGLE_RUNNER_RETRY_MS.
 */
export class ContextRuntime implements OnModuleInit, OnApplicationShutdown {
  private readonly logger: Logger;
  private readonly subscriptions: CatchUpSubscription[];
  private readonly sweeper: Sweeper | undefined;
  private readonly runner: SingleRunner;

  constructor(
    private readonly declaration: ContextDeclaration,
    private readonly infra: ContextInfrastructure,
  ) {
    this.logger = new Logger(declaration.app);
    this.subscriptions = declaration.subscriptions.map((subscription) => this.subscribe(subscription));
    const { sweeper } = declaration;
    this.sweeper = sweeper && new Sweeper(sweeper.tasks, this.subscription(sweeper.caughtUpOn), infra.clock, this.logger, sweeper.options);
    this.runner = new SingleRunner({
      pool: infra.pool,
      name: `context:${declaration.app}`,
      start: () => this.startBackground(),
      stop: () => this.stopBackground(),
      onError: (error) => this.logger.error(`background work (subscriptions, sweeper): ${String(error)}`),
    });
  }

  async onModuleInit(): Promise<void> {
    const { app } = this.declaration;
    const { bus, clock, pool } = this.infra;
    registerHandlers(bus, this.declaration.handlers((id) => this.subscription(id).catchUp()));
    const sweeper = this.sweeper;
    if (sweeper) {
      bus.handle(`${app}.apply-deadlines`, async ({ clockOffsetMs }) => {
        clock.observeOffset(clockOffsetMs);
        await clock.stored(); // the app's other instances follow it from there
        return { applied: await sweeper.applyDeadlines() };
      });
    }
    registerHandlers(bus, new OperatorHandlers(app, this.subscriptions, pool).topics());
    // Tried at once: a lone instance (or the first) runs its background work before it serves.
    await this.runner.start();
    // From now on a subscription not running here runs in the instance holding the lock.
    for (const subscription of this.subscriptions) subscription.standby = true;
  }

  async onApplicationShutdown(): Promise<void> {
    for (const subscription of this.subscriptions) subscription.standby = false;
    await this.runner.stop();
  }

  /** In the instance holding the lock: the subscriptions in order, then the sweeper. */
  private async startBackground(): Promise<void> {
    for (const subscription of this.subscriptions) await subscription.start();
    // A crash may have left processes half done: finish them before serving.
    await this.sweeper?.start();
  }

  private async stopBackground(): Promise<void> {
    await this.sweeper?.stop();
    for (const subscription of [...this.subscriptions].reverse()) await subscription.stop();
  }

  private subscribe(declared: SubscriptionDeclaration): CatchUpSubscription {
    const { store, bus, pool } = this.infra;
    if (declared.kind === 'projection') {
      return new CatchUpSubscription({
        subscriptionId: declared.id,
        store,
        pool,
        typePrefixes: declared.typePrefixes,
        handle: declared.handle,
        // Read by the poll interval, many events a batch: whoever needs the newest rows asks catchUp()
        // first (lists, reconciliation), and the sweeps act on a clock. Woken on every append, a view
        // cost a batch (seven statements) per request under moderate load, beside the request itself.
        wakesOnAppend: false,
        whenStopped: 'follow',
        onError: (error) => this.logger.error(`projection ${declared.id}: ${String(error)}`),
      });
    }
    return new CatchUpSubscription({
      subscriptionId: declared.id,
      store,
      pool,
      typePrefixes: [declared.aggregate.eventTypePrefix],
      handle: integrationRelay(store, declared.aggregate, recordBatchWith(bus)),
      // A safety net: each event was recorded by its request already, so the relay reads by the poll
      // interval, many events a batch, not one batch per append.
      wakesOnAppend: false,
      whenStopped: 'follow',
      onError: (error) => this.logger.warn(`event relay ${declared.id} will retry: ${String(error)}`),
    });
  }

  private subscription(id: string): CatchUpSubscription {
    const found = this.subscriptions.find((subscription) => subscription.subscriptionId === id);
    if (!found) throw new Error(`${this.declaration.app}: no subscription ${id}`);
    return found;
  }
}

/** The Nest provider of a context: `declare` builds its declaration from the host's infrastructure. */
export const contextRuntime = (declare: (infra: ContextInfrastructure) => ContextDeclaration): Provider => ({
  provide: ContextRuntime,
  inject: [EVENT_STORE, MESSAGE_BUS, CLOCK, PG_POOL],
  useFactory: (store: EventStore, bus: MessageBus, clock: OffsetClock, pool: Pool) => {
    const infra = { store, bus, clock, pool };
    return new ContextRuntime(declare(infra), infra);
  },
});

/** Types an aggregate's relay declaration against its aggregate type. */
export const relayOf = <Command, Event extends { type: string }, State extends OwnedState>(
  id: string,
  aggregate: AggregateType<Command, Event, State>,
): SubscriptionDeclaration => ({ kind: 'relay', id, aggregate });
