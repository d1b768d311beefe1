import type { Pool, PoolClient } from 'pg';
import type { Clock, Decider } from '@pay/kernel';
import type { RecordedEvent } from './event-store';
import type { SweepTasks } from './sweeper';

/** A state that is a union on `status` (`none` before the first event). */
type WithStatus = { status: string };

/**
 * A context's read model table (its SQL and columns stay the context's): one row per object, holding
 * the folded `state` and the `revision` of the last event applied to it.
 */
export interface ViewTable {
  table: string;
  /** The column naming the object, e.g. `payment_id`. */
  idColumn: string;
}

/** An object's row to write: its state and revision after `event`. */
export interface ViewRow<Event, State> {
  event: Event;
  state: State;
  revision: string;
}

export interface ViewProjection<Event extends { type: string }, State extends WithStatus, Created extends Event['type']> extends ViewTable {
  /** The object's name in an error, e.g. `payment`. */
  name: string;
  decider: Pick<Decider<unknown, Event, State>, 'evolve' | 'initialState'>;
  /** The object an event is about. */
  idOf(event: Event): string;
  /** The type of the event that creates the object. */
  createdBy: Created;
  /**
   * Inserts the rows of the batch's creations, one per object (ON CONFLICT DO NOTHING: a replayed
   * creation inserts nothing). Called once per batch: one set-based statement for them all.
   */
  insert(tx: PoolClient, rows: ViewRow<Extract<Event, { type: Created }>, State>[]): Promise<void>;
  /**
   * Moves existing rows to their `state` at `revision`; the statement keeps `revision < $revision` in
   * its WHERE. Called once per batch, after `insert`: with `updateFromStateOnly`, one row per object
   * (one set-based statement can write them all); without, one row per event, in the events' order.
   */
  update(tx: PoolClient, rows: ViewRow<Exclude<Event, { type: Created }>, Exclude<State, { status: 'none' }>>[]): Promise<void>;
  /**
   * `update` writes the state alone (of its event, only the object's id): a batch then updates each
   * object once, at its last event. Leave it unset when a column follows the event itself (a counter).
   */
  updateFromStateOnly?: boolean;
}

type Updated<Event extends { type: string }, State extends WithStatus, Created extends Event['type']> = ViewRow<
  Exclude<Event, { type: Created }>,
  Exclude<State, { status: 'none' }>
>;

/** An object's row as the batch has it so far: read once, then moved in memory event by event. */
interface RowSoFar<Event, State> {
  state: State;
  revision: bigint;
  /** The last event applied in this batch when its state is not written yet (updateFromStateOnly). */
  unwritten?: Event;
}

/**
 * The projection of one aggregate's events into its view table, in the subscription's transaction
 * (with its checkpoint): a creation inserts the row; any later event is applied with `evolve` to the
 * row's state, and moves the row only forward (an event at or below the row's revision is ignored).
 * The batch's rows are read in one statement, followed in memory, then written: the creations in one
 * call of `insert`, the changes in one call of `update`.
 */
export const projectForward =
  <Event extends { type: string }, State extends WithStatus, Created extends Event['type']>(view: ViewProjection<Event, State, Created>) =>
  async (events: RecordedEvent[], tx: PoolClient): Promise<void> => {
    const rows = await readRows<Event, State>(tx, view, [...new Set(events.map((recorded) => view.idOf(recorded.data as Event)))]);
    const inserts: ViewRow<Extract<Event, { type: Created }>, State>[] = [];
    const updates: ViewRow<Event, State>[] = [];
    for (const recorded of events) {
      const event = recorded.data as Event;
      const id = view.idOf(event);
      const row = rows.get(id);
      if (isCreation(view, event)) {
        // A replayed creation finds its row (ON CONFLICT DO NOTHING): the row as read stays the truth.
        if (row) continue;
        const state = view.decider.evolve(view.decider.initialState, event);
        inserts.push({ event, state, revision: recorded.revision.toString() });
        rows.set(id, { state, revision: recorded.revision });
        continue;
      }
      if (!row) throw new Error(`${view.name} view ${id}: ${event.type} before its creation`);
      if (row.revision >= recorded.revision) continue;
      const state = view.decider.evolve(row.state, event);
      if (state.status === 'none') throw new Error(`${view.name} view ${id}: no state after ${event.type}`);
      row.state = state;
      row.revision = recorded.revision;
      if (view.updateFromStateOnly) row.unwritten = event;
      else updates.push({ event, state, revision: recorded.revision.toString() });
    }
    for (const { unwritten, state, revision } of rows.values()) {
      if (unwritten) updates.push({ event: unwritten, state, revision: revision.toString() });
    }
    if (inserts.length > 0) await view.insert(tx, inserts);
    if (updates.length > 0) await view.update(tx, updates as Updated<Event, State, Created>[]);
  };

/** For a view whose rows are written one statement each (a cold view, or an update that follows each event). */
export const eachRow =
  <Row>(write: (tx: PoolClient, row: Row) => Promise<unknown>) =>
  async (tx: PoolClient, rows: Row[]): Promise<void> => {
    for (const row of rows) await write(tx, row);
  };

/** The rows of `ids` that exist, by id. */
async function readRows<Event, State>(tx: PoolClient, view: ViewTable, ids: string[]): Promise<Map<string, RowSoFar<Event, State>>> {
  const { rows } = await tx.query<{ id: string; state: State; revision: string }>({
    name: `${view.table}-read-many`,
    text: `SELECT ${view.idColumn} AS id, state, revision FROM ${view.table} WHERE ${view.idColumn} = ANY ($1::text[])`,
    values: [ids],
  });
  return new Map(rows.map((row) => [row.id, { state: row.state, revision: BigInt(row.revision) }]));
}

const isCreation = <Event extends { type: string }, Created extends Event['type']>(
  view: { createdBy: Created },
  event: Event,
): event is Extract<Event, { type: Created }> => event.type === view.createdBy;

/** The rows of a view table a sweep looks for, by conditions on that table's own columns. */
export interface SweptView extends ViewTable {
  /** Open to expiry at `expires_at`, e.g. `status = 'pending' AND NOT authorizing`. */
  expirable?: string;
  /** A ledger step started and its outcome not recorded, e.g. `authorizing OR refunding`. */
  stepPending: string;
}

/** Ids whose `expires_at` has passed at `now` (the service clock), earliest deadline first. */
export async function dueForExpiry(pool: Pool, view: SweptView, now: Date, limit: number): Promise<string[]> {
  if (view.expirable === undefined) throw new Error(`${view.table} has no expiry`);
  const { rows } = await pool.query<{ id: string }>({
    name: `${view.table}-due-for-expiry`,
    text: `SELECT ${view.idColumn} AS id FROM ${view.table} WHERE (${view.expirable}) AND expires_at <= $1 ORDER BY expires_at LIMIT $2`,
    values: [now.toISOString(), limit],
  });
  return rows.map((r) => r.id);
}

/** Ids whose pending step started more than `olderThanMs` ago (real time: the row's `updated_at`), oldest first. */
export async function stalledSteps(pool: Pool, view: SweptView, olderThanMs: number, limit: number): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>({
    name: `${view.table}-stalled`,
    text: `SELECT ${view.idColumn} AS id FROM ${view.table} WHERE (${view.stepPending}) AND updated_at <= now() - make_interval(secs => $1) ORDER BY updated_at LIMIT $2`,
    values: [olderThanMs / 1000, limit],
  });
  return rows.map((r) => r.id);
}

/**
 * The sweep of an aggregate whose objects expire (`expires_at`, the aggregate's `expire` command) and
 * whose process has a ledger step, on its view table: every task but `resume`, the context's own.
 */
export const expirySweep = (pool: Pool, view: SweptView, aggregates: { expire(id: string, now: Date): Promise<boolean> }, clock: Clock): Omit<SweepTasks, 'resume'> => ({
  due: (now, limit) => dueForExpiry(pool, view, now, limit),
  applyDeadline: (id) => aggregates.expire(id, clock.now()),
  stalled: (olderThanMs, limit) => stalledSteps(pool, view, olderThanMs, limit),
});
