import { Logger } from '@nestjs/common';
import { integrationEventId, notFound, type EventType, type IntegrationEvent } from '@pay/contracts';
import { AGGREGATE_STATES_REMEMBERED_MAX, failpoint, type Decider } from '@pay/kernel';
import { handleCommand, loadAggregate, type CommandOptions, type Handled, type Loaded } from './command-handler';
import type { EventStore } from './event-store';

/** What every aggregate's state has: a status (`none` before its first event) and, after, its owner. */
export interface OwnedState {
  status: string;
  terms?: { integratorId: string };
}

/** The state of an object that exists. */
export type Existing<State> = Exclude<State, { status: 'none' }>;

/**
 * What the runtime needs to know of one aggregate type. The rest (decider, resource, integration
 * events) is the context's own; this only names it.
 */
export interface AggregateType<Command, Event extends { type: string }, State extends OwnedState> {
  /** The object as a not-found error names it: `payment`, `cash payment`. */
  name: string;
  decider: Decider<Command, Event, State>;
  streamId(id: string): string;
  /** Every event type of the aggregate starts with it: the subscriptions' filter. */
  eventTypePrefix: string;
  /** The integration event of a status change, or null for a domain event integrators do not see. */
  toIntegrationEvent(event: Event, stateAfter: State, revision: bigint): IntegrationEvent | null;
  /** Events that never make an integration event: the relay does not read their streams. */
  isInternal?(event: Event): boolean;
  /** The command that applies the object's deadline at `now`, for an aggregate that has one (see `AggregateRepository.expire`). */
  expire?(id: string, now: Date): Command;
}

/**
 * The integration event of a status change: its id from the stream and the event's revision (stable
 * under replay), the resource as data with `object_version` (the change's place in its history).
 */
export const statusChangeEvent = (
  streamId: string,
  revision: bigint,
  change: { type: EventType; createdAt: string; integratorId: string; resource: { id: string } },
): IntegrationEvent => ({
  id: integrationEventId(streamId, revision),
  type: change.type,
  createdAt: change.createdAt,
  integratorId: change.integratorId,
  objectId: change.resource.id,
  data: { ...change.resource, object_version: Number(revision) + 1 },
});

/** An integrator-visible status change: its event type and when it happened (the service clock). */
export interface StatusChange<Event> {
  type: EventType;
  at(event: Event): string;
}

/**
 * Every event type of an aggregate, and the status change it is (null: a domain event integrators do
 * not see). Total: an event type added to the aggregate does not compile until it is mapped here.
 */
export type StatusChanges<Event extends { type: string }> = { [T in Event['type']]: StatusChange<Extract<Event, { type: T }>> | null };

/**
 * An aggregate's `toIntegrationEvent` from its status changes: null for an event that is not one;
 * else the resource as of the change (`toResource` gets the change's time) in a `statusChangeEvent`.
 */
export const statusChangeEvents =
  <Event extends { type: string }, State extends OwnedState>(
    streamId: (id: string) => string,
    toResource: (state: Existing<State>, at: Date) => { id: string },
    changes: StatusChanges<Event>,
  ) =>
  (event: Event, stateAfter: State, revision: bigint): IntegrationEvent | null => {
    const change = changes[event.type as Event['type']] as StatusChange<Event> | null;
    if (!change || !isExisting(stateAfter)) return null;
    const createdAt = change.at(event);
    const integratorId = stateAfter.terms?.integratorId;
    if (integratorId === undefined) throw new Error(`${event.type}: the state after it has no owner`);
    const resource = toResource(stateAfter, new Date(createdAt));
    return statusChangeEvent(streamId(resource.id), revision, { type: change.type, createdAt, integratorId, resource });
  };

const logger = new Logger('events');

/** Hands an integration event to the webhooks app (idempotent by its stable id). */
export type RecordIntegrationEvent = (event: IntegrationEvent) => Promise<unknown>;

export const isExisting = <State extends OwnedState>(state: State): state is Existing<State> => state.status !== 'none';

/**
 * One aggregate type's streams: read once, decide and append with the expected revision (retrying
 * on a conflict), record the status change with the webhooks app before anyone is answered (the
 * relay records it instead if the process dies in between, or if the webhooks app does not answer
 * within EVENTS_RECORD_TIMEOUT_MS), and the owner check.
 *
 * It remembers the last state it read or wrote of the most recent objects, so that a command on an
 * object this process has just created or changed is decided without reading its stream again (see
 * `executeVisible`). Reads for callers are always fresh: another process may have moved the stream.
 */
export class AggregateRepository<Command, Event extends { type: string }, State extends OwnedState> {
  /** By object id, least recently written first (a Map iterates in insertion order). */
  private readonly remembered = new Map<string, Loaded<State>>();

  constructor(
    private readonly store: EventStore,
    readonly type: AggregateType<Command, Event, State>,
    private readonly recordEvent: RecordIntegrationEvent,
  ) {}

  /** Reads the stream once. */
  async load(id: string): Promise<Loaded<State>> {
    return this.remember(id, await loadAggregate(this.store, this.type.streamId(id), this.type.decider));
  }

  /** Reads the stream once; not found when the object does not exist. */
  async loadExisting(id: string): Promise<Loaded<Existing<State>>> {
    const loaded = await this.load(id);
    return { state: this.existing(loaded.state, id), revision: loaded.revision };
  }

  /** Reads the stream once; the object as `integratorId` may see it (see `visible`). */
  async loadVisible(id: string, integratorId: string | null): Promise<Loaded<Existing<State>>> {
    const loaded = await this.load(id);
    return { state: this.visible(loaded.state, id, integratorId), revision: loaded.revision };
  }

  /**
   * An integrator sees only its own objects; anything else is as if it did not exist. `null`: the
   * platform's own callers (admin API, agents' application, hosted pages) see every object.
   */
  visible(state: State, id: string, integratorId: string | null): Existing<State> {
    const existing = this.existing(state, id);
    if (integratorId !== null && existing.terms?.integratorId !== integratorId) throw notFound(this.type.name, id);
    return existing;
  }

  /**
   * Decides and appends (see handleCommand: `from` spares reading a stream just read); a status
   * change is then recorded with the webhooks app before the caller answers anyone, or left to the
   * relay when the webhooks app cannot record it now.
   */
  async execute(id: string, command: Command, options: CommandOptions<State> = {}): Promise<Handled<Event, State>> {
    const handled = await handleCommand(this.store, this.type.streamId(id), this.type.decider, command, options);
    this.remember(id, handled);
    const [event, ...more] = handled.events;
    if (event && more.length > 0) throw new Error(`a ${this.type.name} command decides at most one event`);
    const integrationEvent = event && this.type.toIntegrationEvent(event, handled.state, handled.revision);
    if (integrationEvent) {
      // The crash the relay is for: the change in its stream, not yet with the webhooks app.
      failpoint(`events.before-record.${integrationEvent.type}`);
      await this.recordEvent(integrationEvent).catch((error: unknown) =>
        // The change is stored, its event with it: answering an error would tell the caller it failed
        // (and a retry would meet the new status). The relay records the event once the webhooks app answers.
        logger.warn(`${integrationEvent.type} ${integrationEvent.id} left to the relay: ${error instanceof Error ? error.message : String(error)}`),
      );
    }
    return handled;
  }

  /**
   * A command on an object `integratorId` may see (see `visible`), decided on its remembered state
   * when there is one, else on a fresh read. The owner check holds on a remembered state: an object
   * never stops existing and never changes owner. The decision holds too: on a state the stream has
   * moved past, the append is refused by its expected revision and the command decided again on a
   * fresh read, as is a command the remembered state rejects or leaves unchanged (see `stale`).
   */
  async executeVisible(id: string, integratorId: string | null, command: Command, options: Omit<CommandOptions<State>, 'from' | 'stale' | 'expectNew'> = {}): Promise<Handled<Event, State>> {
    const remembered = this.remembered.get(id);
    const from = remembered ?? (await this.load(id));
    this.visible(from.state, id, integratorId);
    return this.execute(id, command, { ...options, from, stale: remembered !== undefined });
  }

  /**
   * Reads the objects of `ids` this process does not remember, all at once (the PostgreSQL event
   * store reads them in one statement), so that commands on each then start together: a batch whose
   * objects other instances wrote last is decided in one wave, not the remembered ones first and the
   * rest a read later. An object that cannot be read is left to its command, which meets the error itself.
   */
  async recall(ids: readonly string[]): Promise<void> {
    await Promise.allSettled(ids.filter((id) => !this.remembered.has(id)).map((id) => this.load(id)));
  }

  /** Creates the object (tried without reading: there is no stream yet); answers it as `integratorId` may see it. */
  async create(id: string, command: Command, integratorId: string | null): Promise<Existing<State>> {
    const { state } = await this.execute(id, command, { expectNew: true });
    return this.visible(state, id, integratorId);
  }

  /** Applies the object's deadline if it has passed at `now` (the aggregate's `expire` command); true when that changed it. */
  async expire(id: string, now: Date): Promise<boolean> {
    if (!this.type.expire) throw new Error(`a ${this.type.name} has no deadline`);
    const { events } = await this.execute(id, this.type.expire(id, now));
    return events.length > 0;
  }

  /**
   * Keeps `loaded` as the object's latest known state (an object that does not exist is not kept:
   * another process may create it); past the bound, the least recently written is forgotten.
   */
  private remember<L extends Loaded<State>>(id: string, loaded: L): L {
    if (!isExisting(loaded.state)) return loaded;
    const known = this.remembered.get(id);
    if (known && known.revision > loaded.revision) return loaded;
    this.remembered.delete(id);
    if (this.remembered.size >= AGGREGATE_STATES_REMEMBERED_MAX) this.remembered.delete(this.remembered.keys().next().value!);
    this.remembered.set(id, { state: loaded.state, revision: loaded.revision });
    return loaded;
  }

  private existing(state: State, id: string): Existing<State> {
    if (!isExisting(state)) throw notFound(this.type.name, id);
    return state;
  }
}
