import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { Pool } from 'pg';
import { ERROR_STATUS, ServiceError } from '@pay/contracts';
import {
  IDEMPOTENCY_GROUP_MAX,
  IDEMPOTENCY_LOCK_MS,
  IDEMPOTENCY_QUEUE_LENGTH_MAX,
  IDEMPOTENCY_RELEASE_RETRY_MS,
  IDEMPOTENCY_RETENTION_HOURS,
  newId,
  SECOND_MS,
  type IdKind,
} from '@pay/kernel';
import { columns, GroupCommit, jsonElement, jsonElements, type Waiting } from '@pay/platform';


export interface IdempotentCall {
  /** The integrator id, or 'admin'. */
  scope: string;
  key: string | undefined;
  /** e.g. `POST /v1/payments`: the same key on another endpoint is a reuse. */
  endpoint: string;
  /** The kind of object created: its id is allocated once and kept with the key. */
  objectKind: IdKind;
  /** For an answer holding a secret that must not be stored as it is: how it is stored, and read back for a replay. */
  seal?: AnswerSeal;
  /**
   * For a body holding a secret (a PIN, a password): the key of the stored request digest, an HMAC, so
   * that the database holds nothing a guess of the secret can be tested against.
   */
  bodyKey?: Buffer;
}

export interface AnswerSeal {
  close(answer: unknown): unknown;
  /** Throws a ServiceError when the stored answer cannot be opened by this request. */
  open(stored: unknown): unknown;
}

/** The request of the create: its body (hashed with the key) and the reply a replay answers on. */
export interface IdempotentRequest {
  body: unknown;
  reply: FastifyReply;
}

/**
 * Idempotency of creates (contract section 3), in PostgreSQL. The object id is allocated when the key is
 * first seen and stored with it, so a retry after a lost answer (or a crash) creates the same object,
 * never a second one. A 4xx is not stored (nothing happened); a 5xx releases the key for a retry. A key
 * is never held past its attempt's answer on the gateway that answered (see `holderPrefix`), and never
 * run by two attempts at once: a parallel duplicate gets 409 idempotency_key_in_use.
 *
 * The claim commits synchronously (`claims`): the key's database may be another server than the
 * object's (a database per service), so nothing else makes it durable, and a claim lost in a crash would
 * let a retry allocate a second object. What follows the create (`outcomes`: the stored answer, a
 * release) commits asynchronously, off the request's critical fsync: losing it leaves the key claimed
 * until its lock expires (on another gateway), and a retry then creates the same object id again, which
 * answers the object.
 *
 * New keys claimed at the same time share one statement and one commit, and so do the answers stored
 * at the same time (group commit); a key seen before takes the slower path alone.
 */
export class IdempotencyStore {
  private readonly newClaims = new GroupCommit<NewClaim, string | null>((group) => this.claimAll(group), {
    name: 'idempotency claim',
    batchSizeMax: IDEMPOTENCY_GROUP_MAX,
    queueLengthMax: IDEMPOTENCY_QUEUE_LENGTH_MAX,
  });
  private readonly answers = new GroupCommit<Answer, void>((group) => this.storeAnswers(group), {
    name: 'idempotency answer',
    batchSizeMax: IDEMPOTENCY_GROUP_MAX,
    queueLengthMax: IDEMPOTENCY_QUEUE_LENGTH_MAX,
  });

  /**
   * Each attempt holds its key as `<this store>:<n>`. An attempt of this store not in `inFlight` has
   * answered: a retry here takes its key over at once, whatever the row's lock says (its release may
   * not have reached the database yet, or its claim committed while its answer was lost). An attempt
   * still in flight, or another gateway's, keeps the key until its lock ends.
   */
  private readonly holderPrefix = `${randomBytes(8).toString('hex')}:`;
  private holderCount = 0;
  private readonly inFlight = new Set<string>();
  /** Releases retried in the background (the database gone when the attempt answered). */
  private releasesPending = 0;

  constructor(
    private readonly claims: Pool,
    private readonly outcomes: Pool,
  ) {}

  async run<T>(call: IdempotentCall, request: IdempotentRequest, create: (objectId: string) => Promise<T>): Promise<T> {
    if (call.key === undefined) return create(newId(call.objectKind));
    const requestSha256 = call.bodyKey ? hmacBody(call.bodyKey, request.body) : hashBody(request.body);
    const holder = `${this.holderPrefix}${++this.holderCount}`;
    this.inFlight.add(holder);
    try {
      const claimed = await this.claim(call, requestSha256, holder);
      if ('replay' in claimed) {
        // Opened first: a seal this caller cannot open is a 409, not the original response, so it carries no header.
        const original = (call.seal ? call.seal.open(claimed.replay.body) : claimed.replay.body) as T;
        void request.reply.header('Idempotent-Replayed', 'true').status(claimed.replay.status);
        return original;
      }
      try {
        const result = await create(claimed.objectId);
        await this.answers.submit({ scope: call.scope, key: call.key, body: call.seal ? call.seal.close(result) : result });
        return result;
      } catch (error) {
        const status = error instanceof ServiceError ? ERROR_STATUS[error.code] : 500;
        // The database gone (the usual cause of a 503 here): a retry on this gateway takes the key over
        // at once (this attempt has answered); the release, retried until the database is back, is for
        // the other gateways. The client is told the original error.
        await this.release(call, status, holder).catch(() => this.releaseLater(call, status, holder));
        throw error;
      }
    } finally {
      this.inFlight.delete(holder);
    }
  }

  /** A 4xx forgets the key (nothing happened); a 5xx unlocks it for a retry. Only while `holder` holds it. */
  private release(call: IdempotentCall, status: number, holder: string): Promise<unknown> {
    return status < 500
      ? this.outcomes.query(`DELETE FROM gw_idempotency_keys WHERE scope = $1 AND key = $2 AND holder = $3 AND state = 'running'`, [call.scope, call.key, holder])
      : this.outcomes.query(`UPDATE gw_idempotency_keys SET locked_until = now() WHERE scope = $1 AND key = $2 AND holder = $3 AND state = 'running'`, [
          call.scope,
          call.key,
          holder,
        ]);
  }

  /** Releases the key in the background until it succeeds or the lock would have ended anyway. */
  private releaseLater(call: IdempotentCall, status: number, holder: string): void {
    if (this.releasesPending >= IDEMPOTENCY_QUEUE_LENGTH_MAX) return; // the lock's end releases it
    this.releasesPending++;
    const until = Date.now() + IDEMPOTENCY_LOCK_MS;
    const done = () => void this.releasesPending--;
    const retry = () => {
      if (Date.now() >= until || (this.outcomes as { ending?: boolean }).ending) return done();
      this.release(call, status, holder).then(done, () => setTimeout(retry, IDEMPOTENCY_RELEASE_RETRY_MS).unref());
    };
    setTimeout(retry, IDEMPOTENCY_RELEASE_RETRY_MS).unref();
  }

  /** An attempt of this store that has answered. */
  private answered(holder: string | null): holder is string {
    return holder !== null && holder.startsWith(this.holderPrefix) && !this.inFlight.has(holder);
  }

  async purgeExpired(): Promise<number> {
    const { rowCount } = await this.outcomes.query(`DELETE FROM gw_idempotency_keys WHERE created_at < now() - make_interval(hours => $1)`, [
      IDEMPOTENCY_RETENTION_HOURS,
    ]);
    return rowCount ?? 0;
  }

  private async claim(call: IdempotentCall, requestSha256: string, holder: string): Promise<{ objectId: string } | { replay: { status: number; body: unknown } }> {
    const claimed = await this.newClaims.submit({ scope: call.scope, key: call.key!, endpoint: call.endpoint, requestSha256, objectId: newId(call.objectKind), holder });
    if (claimed !== null) return { objectId: claimed };

    const { rows } = await this.claims.query<{
      endpoint: string;
      request_sha256: string;
      state: string;
      response_status: number;
      response_body: unknown;
      holder: string | null;
    }>('SELECT endpoint, request_sha256, state, response_status, response_body, holder FROM gw_idempotency_keys WHERE scope = $1 AND key = $2', [
      call.scope,
      call.key,
    ]);
    const existing = rows[0];
    if (!existing) return this.claim(call, requestSha256, holder); // deleted meanwhile (the first attempt failed validation)
    if (existing.endpoint !== call.endpoint || existing.request_sha256 !== requestSha256) {
      throw new ServiceError('idempotency_key_reused', 'this Idempotency-Key was used with another request; use a new key for a new request');
    }
    if (existing.state === 'done') return { replay: { status: existing.response_status, body: existing.response_body } };

    // Its lock ended (its gateway stopped, or released it), or its holder is an attempt of ours that has
    // answered: taken over, with the same object id (a create resumed, never a second object).
    const answeredHolder = this.answered(existing.holder) ? existing.holder : null;
    const takenOver = await this.claims.query<{ object_id: string }>(
      `UPDATE gw_idempotency_keys SET locked_until = now() + make_interval(secs => $3), holder = $4
       WHERE scope = $1 AND key = $2 AND state = 'running' AND (locked_until <= now() OR holder = $5) RETURNING object_id`,
      [call.scope, call.key, IDEMPOTENCY_LOCK_MS / SECOND_MS, holder, answeredHolder],
    );
    if (takenOver.rows[0]) return { objectId: takenOver.rows[0].object_id };
    throw new ServiceError('idempotency_key_in_use', 'a request with this Idempotency-Key is still in progress; retry later');
  }

  /**
   * New keys, in one statement: each one inserted answers its object id; one already there (or twice in
   * the group: the row carries the first one's object id) answers null.
   */
  private async claimAll(group: readonly Waiting<NewClaim, string | null>[]): Promise<void> {
    const { rows } = await this.claims.query<{ object_id: string }>({
      name: 'gw-idempotency-insert-many-held',
      text: `INSERT INTO gw_idempotency_keys (scope, key, endpoint, request_sha256, object_id, holder, state, locked_until)
             SELECT c.scope, c.key, c.endpoint, c.request_sha256, c.object_id, c.holder, 'running', now() + make_interval(secs => $7)
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS c (scope, key, endpoint, request_sha256, object_id, holder)
             ON CONFLICT (scope, key) DO NOTHING RETURNING object_id`,
      values: [
        ...columns(group, ({ item }) => [item.scope, item.key, item.endpoint, item.requestSha256, item.objectId, item.holder]),
        IDEMPOTENCY_LOCK_MS / SECOND_MS,
      ],
    });
    const inserted = new Set(rows.map((row) => row.object_id));
    for (const { item, resolve } of group) resolve(inserted.has(item.objectId) ? item.objectId : null);
  }

  /** The answers of finished creates, in one statement. */
  private async storeAnswers(group: readonly Waiting<Answer, void>[]): Promise<void> {
    await this.outcomes.query({
      // Not a named statement: planned at each run for the table as it is. The table starts empty and
      // grows by thousands of keys a minute; a generic plan kept from when it was small scanned every row.
      // The = ANY finds the rows by the primary key (joined on the unnest alone, the plan may scan the table).
      text: `UPDATE gw_idempotency_keys k SET state = 'done', response_status = 201, response_body = a.body, locked_until = NULL
             FROM unnest($1::text[], $2::text[], ${jsonElements(3)}) AS a (scope, key, body)
             WHERE k.scope = ANY ($1::text[]) AND k.key = ANY ($2::text[]) AND k.scope = a.scope AND k.key = a.key`,
      values: columns(group, ({ item }) => [item.scope, item.key, jsonElement(item.body)]),
    });
    for (const { resolve } of group) resolve();
  }
}

/** A key seen for the first time, with the object id it would hold. */
interface NewClaim {
  scope: string;
  key: string;
  endpoint: string;
  requestSha256: string;
  objectId: string;
  /** The attempt claiming it. */
  holder: string;
}

/** A finished create's answer, stored (as JSON) with its key for the replays. */
interface Answer {
  scope: string;
  key: string;
  body: unknown;
}

/** SHA-256 of the body as canonical JSON (keys sorted): the same JSON body in any key order is the same request. */
export const hashBody = (body: unknown): string => createHash('sha256').update(canonicalJson(body)).digest('hex');

/** HMAC-SHA-256 of the body as canonical JSON, under `key`. */
const hmacBody = (key: Buffer, body: unknown): string => createHmac('sha256', key).update(canonicalJson(body)).digest('hex');

const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
};
